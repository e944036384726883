"""Which ``Host`` headers ``skillsite serve`` answers: a defence against DNS rebinding.

A web page the developer visits can point its own name at 127.0.0.1 and then read whatever the
local server answers, a private catalog included, since the browser takes it for the page's own
origin.  Such a request names the page's host, never the server's.  So, as webpack-dev-server's
``allowedHosts: "auto"`` and Vite's ``server.allowedHosts`` do, the server answers a request
whose ``Host`` is an IP address, ``localhost`` (or a name under ``.localhost``), the name it was
told to listen on, or a name the user allowed (``--allowed-host``), and refuses any other.
"""
from __future__ import annotations

import ipaddress
from typing import Iterable
from urllib.parse import urlsplit

__all__ = ["allowed_names", "host_allowed"]


def allowed_names(listen_host: str, allowed: Iterable[str] = ()) -> frozenset[str]:
    """The host names answered besides IP addresses and ``localhost``: the one listened on and
    ``allowed``, folded as :func:`host_allowed` folds a header's."""
    return frozenset(_folded(name) for name in (listen_host, *allowed) if name)


def host_allowed(header: str | None, names: frozenset[str]) -> bool:
    """Whether a request with this ``Host`` header is answered (``names``: :func:`allowed_names`).
    A request with none (HTTP/1.0) is: a browser always sends one."""
    if header is None:
        return True
    try:
        host = urlsplit("//" + header.strip()).hostname
    except ValueError:  # an unclosed "[" or a port that is no number
        return False
    if not host:
        return False
    host = _folded(host)
    return _is_address(host) or host == "localhost" or host.endswith(".localhost") or host in names


def _folded(name: str) -> str:
    """A host name as compared: lower case, no brackets, no final dot (``Example.COM.``)."""
    return name.strip("[]").rstrip(".").lower()


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
