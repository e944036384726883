"""The audit's own configuration: suppressions in ``skillsite.yml`` without a reason (SK690),
matching no finding (SK691) or malformed (SK692).  Reported by :mod:`skillsite.audit.suppress`
and the command line, which read the configuration; nothing is scanned for them."""
from __future__ import annotations

from skillsite.audit.declare import NEVER, Rule

NO_REASON = Rule(
    "SK690", "configuration", "medium", "suppression without a reason; not applied",
    "Every silenced finding needs a written reason, so reviewers can judge it later.", NEVER)
STALE = Rule(
    "SK691", "configuration", "low", "suppression matches no finding",
    "A stale suppression would silently hide a future finding; remove it.", NEVER)
MALFORMED = Rule(
    "SK692", "configuration", "medium", "malformed suppression",
    "audit.ignore entries are mappings with code, skill and reason.", NEVER)
