"""Allow ``python -m skillsite``."""
from skillsite.cli import main

if __name__ == "__main__":
    main()
