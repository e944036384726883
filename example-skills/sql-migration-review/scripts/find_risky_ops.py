#!/usr/bin/env python3
"""Flag SQL statements that often lock or rewrite large tables. Reads files only."""
import re
import sys

RULES = [
    (r"\bCREATE\s+(UNIQUE\s+)?INDEX\s+(?!CONCURRENTLY)", "index built without CONCURRENTLY"),
    (r"\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b", "column type change may rewrite the table"),
    (r"\bADD\s+CONSTRAINT\b(?!.*\bNOT\s+VALID\b)", "constraint validated while holding a lock"),
    (r"\bSET\s+NOT\s+NULL\b", "SET NOT NULL scans the whole table"),
    (r"\bDROP\s+(COLUMN|TABLE)\b", "destructive: needs expand/contract and a backup"),
    (r"\bRENAME\s+(COLUMN|TO)\b", "rename breaks running code that uses the old name"),
    (r"^\s*UPDATE\b(?!.*\bLIMIT\b)", "unbatched UPDATE"),
    (r"^\s*DELETE\b(?!.*\bLIMIT\b)", "unbatched DELETE"),
]


def main(paths: list[str]) -> int:
    found = 0
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            sql = fh.read()
        for number, statement in enumerate(s for s in sql.split(";") if s.strip()):
            flat = " ".join(statement.split())
            for pattern, message in RULES:
                if re.search(pattern, flat, re.IGNORECASE):
                    found += 1
                    print(f"{path}: statement {number + 1}: {message}: {flat[:80]}")
    if not found:
        print("no risky statements found (still read them yourself)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
