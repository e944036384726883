"""The characters XML 1.0 cannot hold, for the prompt fragments (:mod:`~skillsite.agent.prompt_xml`)
and for the manifest entries whose ids and paths those fragments name (standard library only)."""
from __future__ import annotations

import re

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # lone surrogates: no UTF-8 either


def xml_allowed(text: str) -> str:
    """``text`` with each character XML 1.0 forbids (control characters, lone surrogates) as U+FFFD."""
    return _XML_INVALID.sub("\ufffd", text)


def xml_forbidden(text: str) -> str | None:
    """The first character of ``text`` XML 1.0 forbids (a control character, U+FFFE, U+FFFF, a lone
    surrogate), or None: an XML attribute holds ``text`` as it is only when there is none."""
    found = _XML_INVALID.search(text)
    return None if found is None else found.group()


def xml_unkept(text: str) -> str | None:
    """The first character of ``text`` XML element content cannot give back as written (one XML 1.0
    forbids, or a carriage return: a parser reads it back as a line feed), or None."""
    found = _XML_INVALID.search(text)
    return found.group() if found is not None else "\r" if "\r" in text else None


def xml_keeps(text: str) -> bool:
    """Whether ``text`` reads back from XML element content as written (:func:`xml_unkept`)."""
    return xml_unkept(text) is None

