"""Allow ``python -m skillsite``."""
from skillsite.cli import entry

if __name__ == "__main__":
    entry()
