"""``skillsite mcp``'s start-up at a few catalog sizes, by each version of the code, side by side.

A catalog of N user-invocable skills is the example catalog built once, its ``skills.json`` grown
with N copies of ``test-first`` under ids and slash commands of their own (each a prompt, each
of its files a ``skill://`` resource), as tests/integration/test_mcp_list_pages.py grows it (up
to some 25,000: the loader reads a skills.json of at most 64 MiB); ``--site DIR`` times a built
catalog as well (``benchmarks/synth.py`` and ``skillsite build`` make one of real skills' sizes,
its manifest paged).  Each server is a fresh ``python -m skillsite mcp
--catalog SITE`` of one version (``--code LABEL=FOLDER``, a checkout put first on PYTHONPATH;
default: this repository), driven by raw JSON-RPC lines on its stdin, the versions taking turns.
Printed per version and catalog, medians of ``--runs``: the seconds until ``initialize`` is
answered (start-up: reading the catalog and making the server), then the first page of
``prompts/list`` and of ``resources/list``, one ``prompts/get`` and one ``resources/read`` of a
skill's SKILL.md, and the server's peak memory; then the Skills extension's first ``skills/list``
page (that server's first extension request), and, each the first request of a fresh server of
its own, ``skills/get`` and ``resources/directory/read`` of the catalog's last skill (the first
request the extension answers pays for what it makes, so each is timed where it is first).

    python benchmarks/mcp_startup.py [--sizes 1000,5000,20000] [--runs 3] [--code before=/tmp/before --code after=.]
                                     [--site DIR ...] [--work DIR]
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
from code_versions import check_version, in_turns, version_env  # noqa: E402
from machine import describe  # noqa: E402

from skillsite.agent.entry import ManifestEntry  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402
from skillsite.mcp.file_tables import skill_root  # noqa: E402
from skillsite.mcp.skills import EXTENSION  # noqa: E402
from skillsite.publish.build import build  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "example-skills"
#: The skill each grown one copies: user-invocable, with three files; some 2.4 KB of skills.json each, so
#: that a grown catalog stays one file the loader reads (64 MiB at most) up to some 25,000 skills.
MODEL = "test-first"
#: What each row reports, in order: (key, column heading).
COLUMNS = (("ready", "initialize answered, s"), ("prompts", "first prompts/list page, s"),
           ("resources", "first resources/list page, s"), ("get", "prompts/get, s"), ("read", "resources/read, s"),
           ("rss", "peak memory, MiB"), ("skills", "first skills/list page, s"), ("skills_get", "skills/get, s"),
           ("directory", "resources/directory/read, s"))


def grown_site(work: Path, base: Path, size: int) -> Path:
    """The example catalog (built in ``base``) with ``size`` more user-invocable skills, copies of
    MODEL under ids and commands of their own (made once in ``work``)."""
    site = work / f"grown-{size}"
    if site.exists():
        return site
    shutil.copytree(base, site)
    data = json.loads((site / "skills.json").read_text("utf-8"))
    model = next(entry for entry in data["skills"] if entry["id"] == MODEL)
    data["skills"] += [{**model, "id": f"gen-{i:06d}", "name": f"gen-{i:06d}", "command": f"gen_{i:06d}",
                        "children": []} for i in range(size)]
    (site / "skills.json").write_text(json.dumps(data), "utf-8")
    return site


def example_site(work: Path) -> Path:
    """The example catalog, built by this checkout's skillsite into ``work`` (once)."""
    site = work / "example"
    if not site.exists():
        if not build([EXAMPLES], site, jobs=1).ok:
            raise SystemExit(f"the example catalog ({EXAMPLES}) did not build")
    return site


class Server:
    """One ``skillsite mcp`` process of one version, spoken to in JSON-RPC lines."""

    def __init__(self, code: Path, site: Path, cwd: Path) -> None:
        self.log = cwd / "server.log"
        with open(self.log, "w", encoding="utf-8") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "skillsite", "mcp", "--catalog", str(site)],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                         text=True, cwd=cwd, env=version_env(code))
        self.next_id = 0

    def initialize(self) -> None:
        """The handshake, declaring the Skills extension."""
        self.call("initialize", protocolVersion="2025-11-25", capabilities={"extensions": {EXTENSION: {}}},
                  clientInfo={"name": "mcp_startup", "version": "0"})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """The result of one request (SystemExit on an error or a server that stopped)."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        for line in self.proc.stdout:  # type: ignore[union-attr]
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "result" not in message:
                    raise SystemExit(f"{method} failed: {json.dumps(message)[:2000]}")
                return message["result"]
        raise SystemExit(f"the server stopped before answering {method} (exit {self.proc.wait()}):\n"
                         + self.log.read_text("utf-8", "replace")[-3000:])

    def send(self, message: dict[str, Any]) -> None:
        self.proc.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def peak_mib(self) -> float:
        """The process's peak resident memory so far (VmHWM), in MiB."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) / 1024

    def close(self) -> None:
        self.proc.stdin.close()  # type: ignore[union-attr]
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def timed(call: Any) -> tuple[float, Any]:
    """The seconds ``call()`` took, and what it returned."""
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def last_skill(site: Path) -> str:
    """The URI of the SKILL.md of the catalog's last skill (as the extension serves it)."""
    return skill_root(ManifestEntry.from_json(Catalog.open(str(site)).skills[-1])) + "/SKILL.md"


def first_call(code: Path, site: Path, cwd: Path, method: str, **params: Any) -> float:
    """The seconds ``method`` took as the first request of a fresh server serving ``site``."""
    server = Server(code, site, cwd)
    try:
        server.initialize()
        return timed(lambda: server.call(method, **params))[0]
    finally:
        server.close()


def one_run(code: Path, site: Path, cwd: Path) -> dict[str, float]:
    """Each COLUMNS figure of fresh servers serving ``site``."""
    start = time.perf_counter()
    server = Server(code, site, cwd)
    try:
        server.initialize()
        row = {"ready": time.perf_counter() - start}
        row["prompts"], prompts = timed(lambda: server.call("prompts/list")["prompts"])
        row["resources"], resources = timed(lambda: server.call("resources/list")["resources"])
        command = prompts[-1]["name"]  # the last listed: a grown skill's where there are any
        row["get"], _ = timed(lambda: server.call("prompts/get", name=command, arguments={"task": "now"}))
        skill_md = next(r["uri"] for r in reversed(resources) if r["uri"].endswith("/SKILL.md"))
        row["read"], _ = timed(lambda: server.call("resources/read", uri=skill_md))
        row["rss"] = server.peak_mib()
        row["skills"], _ = timed(lambda: server.call("skills/list"))
    finally:
        server.close()
    skill_md = last_skill(site)
    row["skills_get"] = first_call(code, site, cwd, "skills/get", uri=skill_md)
    row["directory"] = first_call(code, site, cwd, "resources/directory/read", uri=skill_md.removesuffix("/SKILL.md"))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,5000,20000", help="grown catalogs' user-invocable skills")
    parser.add_argument("--site", action="append", default=[], type=Path, help="a built catalog to time too")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", action="append", default=[], metavar="LABEL=FOLDER")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    args = parser.parse_args()
    codes = dict(item.split("=", 1) for item in args.code) or {"this": str(REPO)}
    work = (args.work or Path(tempfile.mkdtemp(prefix="mcp-startup-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {describe()}")
    print(f"command: python benchmarks/mcp_startup.py --sizes {args.sizes} --runs {args.runs}"
          + "".join(f" --code {c}" for c in args.code) + "".join(f" --site {s}" for s in args.site))
    print("server: python -m skillsite mcp --catalog SITE (PYTHONPATH: the version's folder), "
          "raw JSON-RPC on its stdin")
    base = example_site(work)
    sites = {f"{int(size):,} grown": grown_site(work, base, int(size)) for size in args.sizes.split(",") if size}
    sites.update({str(site): site.resolve() for site in args.site})
    for label, code in codes.items():
        check_version(label, Path(code), work)
    rows: dict[tuple[str, str], list[dict[str, float]]] = {(c, s): [] for s in sites for c in codes}
    for number in range(args.runs):
        for label, code in in_turns(codes, number):
            for name, site in sites.items():
                rows[(label, name)].append(one_run(Path(code), site, work))
    print(f"\nmedians of {args.runs} runs, a fresh server each\n")
    print("| catalog | skills | code | " + " | ".join(heading for _, heading in COLUMNS) + " |")
    print("|---|---:|---|" + "---:|" * len(COLUMNS))
    for (label, name), runs in rows.items():
        skills = len(Catalog.open(str(sites[name])).skills)
        figures = " | ".join(f"{statistics.median(run[key] for run in runs):.2f}" if key != "rss" else
                             f"{statistics.median(run[key] for run in runs):.0f}" for key, _ in COLUMNS)
        print(f"| {name} | {skills:,} | {label} | {figures} |")


if __name__ == "__main__":
    main()
