"""What a check reports before the engine turns it into a :class:`~skillsite.audit.model.Finding`."""
from __future__ import annotations

from dataclasses import dataclass

from skillsite.audit.model import SeverityName


@dataclass(frozen=True)
class Hit:
    """A rule matched ``[start, end)`` of a document (in its folded text unless ``folded`` is False)."""

    code: str
    start: int
    end: int
    detail: str = ""                      # appended to the rule's message
    severity: SeverityName | None = None  # instead of the rule's default
    folded: bool = True
    related: int | None = None            # another folded offset whose context counts too (a send)
