"""What signed catalogs cost (issue #45): signing in a cold build, verification in ``Catalog.open``.

1. Signing: cold builds (no cache) of ``../shared/corpus``, unsigned and signed, alternated;
   the medians, their ratio, and the signed build's own ``sign`` stage.  Target: at most 1 %.
2. Verification: ``Catalog.open`` of a catalog served over HTTP by another process on
   127.0.0.1, with and without its key trusted, alternated, in one process (the libraries
   already imported: what an agent that opens catalogs pays each time) and each in a fresh
   process (imports included); warm (the cache holds the catalog and its accepted metadata: a
   revalidation) and cold (an empty cache).  For the example catalog and a synthetic catalog of
   ``--skills`` skills (``benchmarks/synth.py``).  Targets: at most 20 ms added for the example,
   50 ms at 10,000 skills.

Run:  python benchmarks/trust_cost.py [--builds 3] [--opens 15] [--skills 10000] [--skip-signing]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import describe as describe_machine  # noqa: E402
from skillsite.config import SiteConfig  # noqa: E402
from skillsite.loader import Catalog  # noqa: E402
from skillsite.publish.build import build  # noqa: E402
from skillsite.publish.signing import Signing, SigningKey, new_key_file  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
SERVER = r"""
import functools, http.server, sys
http.server.SimpleHTTPRequestHandler.log_message = lambda *a: None
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(httpd.server_address[1], flush=True)
httpd.serve_forever()
"""
FRESH = r"""
import sys, time
t0 = time.perf_counter()
from skillsite.loader import Catalog
keys = [sys.argv[3]] if sys.argv[3] else ()
Catalog.open(sys.argv[1], cache_dir=sys.argv[2], trusted_keys=keys)
print(time.perf_counter() - t0)
"""


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f}"


def signing_cost(key: Signing, builds: int, work: Path) -> None:
    """Cold builds of the corpus, unsigned and signed, alternated (which goes first alternates
    too: later builds of a run drift slower), each into a folder of its own: none is deleted
    while builds are timed (this machine's ext4 creates files much more slowly for a while after
    many were deleted, which made whichever build followed a deletion look slower)."""
    times: dict[str, list[float]] = {"unsigned": [], "signed": []}
    stage: list[float] = []
    for n in range(builds):
        pair = (("unsigned", None), ("signed", key))
        for name, signing in pair if n % 2 == 0 else pair[::-1]:
            out = work / f"{name}-{n}" / "_site"
            started = time.perf_counter()
            result = build([CORPUS], out, SiteConfig(), keep_going=True, signing=signing)
            times[name].append(time.perf_counter() - started)
            assert result.ok, "the corpus build failed"
            if signing is not None:
                stage.append(result.stages["sign"])
    unsigned, signed = statistics.median(times["unsigned"]), statistics.median(times["signed"])
    print(f"\n## Signing a cold build of the corpus ({builds} builds each, alternated)\n")
    print("| build | median s |\n|---|---:|")
    print(f"| unsigned | {unsigned:.2f} |\n| signed | {signed:.2f} |")
    print(f"\nsigned / unsigned: {signed / unsigned:.3f}; the sign stage itself: median {median_ms(stage)} ms "
          f"= {statistics.median(stage) / signed * 100:.2f} % of the signed build (target: at most 1 %)")


def serve(site: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(site)], stdout=subprocess.PIPE, text=True)
    port = proc.stdout.readline().strip()  # type: ignore[union-attr]
    return proc, f"http://127.0.0.1:{port}/"


def open_costs(label: str, unsigned: Path, signed: Path, key: str, opens: int, work: Path) -> None:
    """Catalog.open of the unsigned catalog, and of the signed one with its key trusted,
    alternated: in this process and in fresh ones."""
    servers = [serve(unsigned), serve(signed)]
    urls = {"without": (servers[0][1], ""), "with": (servers[1][1], key)}
    try:
        for mode in ("warm", "cold"):
            inside: dict[str, list[float]] = {"without": [], "with": []}
            fresh: dict[str, list[float]] = {"without": [], "with": []}
            for n in range(opens):
                for name, (url, keys) in urls.items():
                    trusted = [keys] if keys else ()
                    cache = work / f"{label}-{mode}-{name}" / (str(n) if mode == "cold" else "warm")
                    if mode == "warm":
                        Catalog.open(url, cache_dir=cache, trusted_keys=trusted)
                    started = time.perf_counter()
                    Catalog.open(url, cache_dir=cache, trusted_keys=trusted)
                    inside[name].append(time.perf_counter() - started)
                    fresh_cache = work / f"{label}-{mode}-{name}-fresh" / (str(n) if mode == "cold" else "warm")
                    if mode == "warm" and n == 0:
                        subprocess.run([sys.executable, "-c", FRESH, url, str(fresh_cache), keys], check=True, cwd=REPO,
                                       capture_output=True)
                    done = subprocess.run([sys.executable, "-c", FRESH, url, str(fresh_cache), keys], text=True,
                                          capture_output=True, check=True, cwd=REPO)
                    fresh[name].append(float(done.stdout))
            added = statistics.median(inside["with"]) - statistics.median(inside["without"])
            added_fresh = statistics.median(fresh["with"]) - statistics.median(fresh["without"])
            print(f"| {label} | {mode} | {median_ms(inside['without'])} | {median_ms(inside['with'])} | "
                  f"**{added * 1000:.1f}** | {median_ms(fresh['without'])} | {median_ms(fresh['with'])} | "
                  f"{added_fresh * 1000:.1f} |")
    finally:
        for proc, _ in servers:
            proc.terminate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--opens", type=int, default=15)
    parser.add_argument("--skills", type=int, default=10_000, help="the synthetic catalog's size (0: none)")
    parser.add_argument("--skip-signing", action="store_true", help="only the verification part")
    args = parser.parse_args()
    print(f"machine: {describe_machine()}")
    print(f"command: python benchmarks/trust_cost.py {' '.join(sys.argv[1:])}")
    with tempfile.TemporaryDirectory(prefix="trust-cost-") as tmp:
        work = Path(tmp)
        new_key_file(work / "key.pem")
        key = Signing(SigningKey.from_file(work / "key.pem"))
        if not args.skip_signing and CORPUS.is_dir():
            signing_cost(key, args.builds, work / "builds")
        sites = [("example", REPO / "example-skills")]
        if args.skills:
            from synth import generate

            sites.append((f"{args.skills:,} synthetic", generate(work / "synth", args.skills)))
        print(f"\n## Catalog.open over HTTP on 127.0.0.1, medians of {args.opens} (ms)\n")
        print("| catalog | cache | in process: unsigned catalog | signed, key trusted | added | fresh process: "
              "unsigned catalog | signed, key trusted | added |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for label, source in sites:
            unsigned, signed = work / f"site-{label.split()[0]}", work / f"signed-{label.split()[0]}"
            assert build([source], unsigned, SiteConfig(), keep_going=True).ok
            assert build([source], signed, SiteConfig(), keep_going=True, signing=key).ok
            open_costs(label, unsigned, signed, key.key.public.text, args.opens, work / "caches")
        print("\n'added' in process is what verification adds to each Catalog.open (target: 20 ms for the example, "
              "50 ms at 10,000 skills); a fresh process also imports cryptography and securesystemslib.")


if __name__ == "__main__":
    main()
