"""Allow ``python -m skillsite``."""
import gc

gc.disable()  # as in skillsite/__init__.py: the command line's modules live as long as the process
from skillsite.cli import entry  # noqa: E402

gc.enable()

if __name__ == "__main__":
    entry()
