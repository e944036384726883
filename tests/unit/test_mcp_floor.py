"""The ``mcp`` extra's floor: pyproject.toml admits no mcp the server cannot run on, and
``skillsite mcp`` refuses an older one in a sentence naming the floor."""
from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from skillsite.mcp import server

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


def test_the_extra_admits_no_mcp_older_than_the_server_needs() -> None:
    """pyproject.toml said mcp>=1.2, where the lists come whole (mcp 1.x has no server middleware)
    and mcp 2.0.0 hid a resource's error; the extra's floor is the server's LOWEST_MCP."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    (requirement,) = project["optional-dependencies"]["mcp"]
    floor = re.fullmatch(r"mcp>=(\d+)\.(\d+)", requirement)
    assert floor is not None, requirement
    assert (int(floor[1]), int(floor[2])) == server.LOWEST_MCP == (2, 1)


@pytest.mark.parametrize("version, number", [("2.1.0", (2, 1)), ("2.10.0rc1", (2, 10)), ("1.27.2", (1, 27)),
                                             ("dev", None)])
def test_release_numbers(version: str, number: tuple[int, int] | None) -> None:
    assert server.release(version) == number


def test_an_older_mcp_is_refused_naming_the_floor(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An mcp 2.0.0 installed beside skillsite: the server started, and a resource that failed its
    digest came back as "Error reading resource URI".  ``skillsite mcp`` exits 2 saying which
    mcp it needs and which it found."""
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP server is an optional extra")
    from skillsite.cli import main

    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "2.0.0" if name == "mcp" else real(name))
    result = CliRunner().invoke(main, ["mcp", "--catalog", str(site)])
    assert result.exit_code == 2, result.output
    assert ("the MCP server needs the 'mcp' package, 2.1 or later: pip install 'skillsite[mcp]' "
            "(mcp 2.0.0 is installed)") in result.output
