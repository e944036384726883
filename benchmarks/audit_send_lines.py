"""SK620's network sends on long hostile lines: does reading httpie's words and words about sending
stay linear?  Each shape is a line of about ``--size`` characters (1 MB) after a credential read:
httpie words with options and separators (each word once read its options anew), curl words with no
URL, and sentences of words about sending with and without dots (a dot inside a word is read as part
of its sentence).  Each is audited once (``audit_document``) and its time printed.

Run:  python benchmarks/audit_send_lines.py [--size 1000000] [--checkout PATH]
      (``--checkout``: another revision's work tree, e.g. ``git worktree add /tmp/base fd05125``)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe  # noqa: E402

#: What each shape's file holds before its line: a credential read, in a shell script, Python, prose.
SHELL_READ = "KEY=$(cat ~/.ssh/id_rsa)\n"
PY_READ = "key = open(os.path.expanduser('~/.ssh/id_rsa')).read()\n"
PROSE_READ = "cat ~/.ssh/id_rsa\n"
#: (file audited as, the text before the line, the piece the line repeats, its name when not the piece).
SHAPES = (
    ("scripts/a.sh", SHELL_READ, "http -"),
    ("scripts/a.sh", SHELL_READ, "http -x"),
    ("scripts/a.sh", SHELL_READ, "http - "),
    ("scripts/a.sh", SHELL_READ, "http "),
    ("scripts/a.sh", SHELL_READ, "; http -a "),
    ("scripts/a.sh", SHELL_READ, "'http -x "),
    ("scripts/a.py", PY_READ, "['http', "),
    ("scripts/a.py", PY_READ + "['http', ", "url", "['http', url..."),
    ("scripts/a.sh", SHELL_READ, "curl "),
    ("scripts/a.sh", SHELL_READ, "curl http -"),
    ("README.md", PROSE_READ, "send to "),
    ("README.md", PROSE_READ, "send.to."),
    ("README.md", PROSE_READ, "send a.to "),
    ("README.md", PROSE_READ, "to.send."),
    ("README.md", PROSE_READ, "send to server. "),
    ("scripts/a.sh", PROSE_READ, "send to "),
    ("scripts/a.sh", PROSE_READ, "send.to."),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout))
    from skillsite.audit.engine import audit_document

    print(f"machine: {describe()}")
    print(f"command: python benchmarks/audit_send_lines.py --size {args.size} --checkout {args.checkout}\n")
    print("| line of | audited as | seconds |")
    print("|---|---|---:|")
    for path, head, piece, *named in SHAPES:
        name = named[0] if named else piece
        text = head + piece * (args.size // len(piece)) + "\n"
        began = time.perf_counter()
        audit_document(path, text)
        print(f"| `{name}` | {path} | {time.perf_counter() - began:.2f} |", flush=True)


if __name__ == "__main__":
    main()
