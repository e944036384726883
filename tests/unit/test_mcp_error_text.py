"""How ``skillsite mcp`` words a loader error: a restart where only a restart helps, and not
where the server opens the catalog again by itself at the next request."""
from __future__ import annotations

from skillsite.cli.reading import mcp_error_text
from skillsite.loader import IntegrityError, TrustError
from skillsite.mcp.reopening import PUBLISHED_ANEW, ReopenError


def test_a_reopening_that_failed_says_the_next_request_tries_again_not_to_restart() -> None:
    """Half-way through an upload (skills.json new, the signed metadata not yet): the reopening's
    own error said "restart skillsite mcp", and the next request, once the upload was whole, was
    answered without any restart."""
    failed = IntegrityError("skills/a/SKILL.md does not match the catalog: refusing it")
    opening = TrustError("skills.json is not the file the signed metadata pins: refusing it (a build published "
                         "while it was read gives this too: open the catalog again)", "http://127.0.0.1/skills.json")
    text = mcp_error_text(ReopenError(failed, PUBLISHED_ANEW, opening))
    assert "restart" not in text and text.endswith("gives this too: the next request opens it again)"), text
    assert "published anew since this server opened it, and opening it again failed: " in text, text


def test_an_error_the_server_does_not_cure_by_itself_still_says_to_restart() -> None:
    expired = TrustError("its signed metadata expired at 2026-01-01T00:00:00Z while the catalog was open: "
                         "open the catalog again", "http://127.0.0.1/skills.json")
    assert mcp_error_text(expired).endswith("while the catalog was open: restart skillsite mcp to read it anew")
