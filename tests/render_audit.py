"""What a rendered skill body may contain: the tag, attribute and URL audit shared by the
renderer's tests (tests/unit/test_render.py, tests/integration/test_render_corpus.py)."""
from __future__ import annotations

import re
from html.parser import HTMLParser

ALLOWED_TAGS = {"p", "a", "span", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "hr", "br",
                "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "s", "img", "input"}
ALLOWED_ATTRS = {"href", "title", "rel", "class", "id", "src", "alt", "type", "disabled", "checked", "start"}
# Attributes the renderer itself sets on one tag only, always to one of these values: code
# blocks and tables are focusable (they may scroll), a task's checkbox has a label.
FIXED_ATTRS = {("pre", "tabindex"): {"0"}, ("table", "tabindex"): {"0"},
               ("input", "aria-label"): {"Completed task", "Incomplete task"}}
# A <div> only as a GitHub alert's box (``> [!NOTE]`` ...).
ALERT_DIV = re.compile(r"markdown-alert markdown-alert-(note|tip|important|warning|caution)")


class Audit(HTMLParser):
    """Every tag and attribute of a fragment, for checking what a renderer let through."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.open_links = 0
        self.nested_links = 0   # <a> opened inside another: a browser closes the outer one there

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "a":
            self.nested_links += self.open_links > 0
            self.open_links += 1

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag == "a":
            self.open_links = max(0, self.open_links - 1)


def audit(html: str) -> list[tuple[str, dict[str, str | None]]]:
    """The start tags of ``html`` with their attributes, in order."""
    return _parsed(html).tags


def _parsed(html: str) -> Audit:
    parser = Audit()
    parser.feed(html)
    parser.close()
    return parser


def assert_safe(html: str) -> None:
    """Only allowed tags and attributes, no link inside a link, and no href or src with a scheme
    other than http(s)/mailto."""
    parsed = _parsed(html)
    assert parsed.nested_links == 0, html
    for tag, attrs in parsed.tags:
        if tag == "div":
            assert set(attrs) == {"class"} and ALERT_DIV.fullmatch(attrs["class"] or ""), (tag, attrs)
        else:
            assert tag in ALLOWED_TAGS, (tag, html)
        fixed = {name for name in attrs if (tag, name) in FIXED_ATTRS}
        assert all(attrs[name] in FIXED_ATTRS[tag, name] for name in fixed), (tag, attrs)
        assert set(attrs) - fixed <= ALLOWED_ATTRS, (tag, attrs)
        for name in ("href", "src"):
            value = (attrs.get(name) or "").strip().lower()
            if value:
                assert value.startswith(("#", "http://", "https://", "mailto:")) or ":" not in value.split("/")[0], value
