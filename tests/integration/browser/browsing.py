"""Helpers of the browser tests (a module of its own: ``conftest`` names shadow each other)."""
from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

from skillsite.config import SiteConfig

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "example-skills"
XSS = REPO / "tests" / "fixtures" / "xss"
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SITE_CONFIG = SiteConfig(title="Example skills", description="Skills for an imaginary engineering team.",
                         repo_url="https://github.com/example/skills")

# Script injected before any page script (not subject to the page's CSP): records CSP
# violations, so a test sees an injection the policy had to block.
RECORD_CSP = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) {
  window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI);
});
"""


def chromium_path() -> str | None:
    for candidate in (os.environ.get("SKILLSITE_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


@dataclass
class Served:
    """A built catalog served over HTTP; ``requests`` collects every URL a page asked for."""

    root: Path
    url: str
    requests: list[str] = field(default_factory=list)

    def page_url(self, rel: str = "") -> str:
        return self.url + rel


def watch_requests(page, served: Served) -> list[str]:
    """Record every request of ``page`` into a list (and ``served.requests``)."""
    seen: list[str] = []

    def on_request(request) -> None:
        seen.append(request.url)
        served.requests.append(request.url)

    page.on("request", on_request)
    return seen


def wait_until(page, expression: str, arg=None, timeout: float = 10.0) -> None:
    """Poll a JavaScript function until it returns true.

    ``page.wait_for_function`` compiles its predicate with ``eval`` while polling, which
    the catalog's Content-Security-Policy (rightly) forbids; ``page.evaluate`` is not
    affected, so poll with it.
    """
    from playwright.sync_api import Error

    deadline = time.monotonic() + timeout
    while True:
        try:
            if page.evaluate(expression, arg):
                return
        except Error:  # the page is navigating (a reload): look again
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(20)


def open_home(page, served, query: str = "") -> None:
    """The home page of ``served`` with ``query`` (say ``?q=polish``), once its index is ready and
    the results of the link's query are drawn."""
    page.goto(served.page_url("index.html" + query))
    wait_until(page, "() => performance.getEntriesByName('skillsite:index-ready').length > 0")
    if parse_qs(query.removeprefix("?")).get("q"):  # searched: a sharded index fetches its chunks and cards
        wait_until(page, "() => performance.getEntriesByName('skillsite:results').length > 0")
    page.wait_for_timeout(400)


def shown_skills(page) -> list[str]:
    """The ids of the skills the home page shows, in its order: the search results while it
    searches, else the list."""
    searching = page.evaluate("() => document.documentElement.classList.contains('searching')")
    where = "#searchResults > li a" if searching else "#skillList > li:not([hidden]) .skill-title a"
    hrefs = page.locator(where).evaluate_all("links => links.map(a => a.getAttribute('href'))")
    return [h.removeprefix("skills/").removesuffix("/") for h in hrefs]


def listed_skills(site: Path) -> list[dict]:
    """The manifest entries the site's lists and search show (not hidden ones), in manifest order."""
    from skillsite.agent.entry import Visibility

    manifest = json.loads((site / "skills.json").read_text(encoding="utf-8"))
    return [e for e in manifest["skills"] if Visibility.from_json(e["visibility"]).listed]
