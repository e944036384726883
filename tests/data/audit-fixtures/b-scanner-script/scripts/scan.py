import re, sys

PATTERNS = [
    r"ignore (all )?previous instructions",
    "Ignore all previous instructions",
]

for p in PATTERNS:
    if re.search(p, open(sys.argv[1]).read(), re.I):
        sys.exit(1)
