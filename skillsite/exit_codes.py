"""The exit statuses of every command, in one place: the command line (``cli/``) and
``skillsite audit`` (``audit/``, which may not import ``cli/``) say the same thing by the same number."""
from __future__ import annotations

EXIT_SKILLS = 1       # problems in the skills (or warnings under --strict), or an audit finding at --fail-on
EXIT_USAGE = 2        # a bad command line, configuration or output folder, or an address serve cannot listen on
EXIT_ENVIRONMENT = 3  # the machine refused: no space, a read-only or forbidden folder, a name too long
EXIT_BUSY = 4         # another build is writing into the output's folder (--no-wait)
EXIT_NO_SKILLS = 5    # a source folder holds no SKILL.md at all (SK013): a typo, or an empty tree
#: A catalog that does not hold: unreadable, tampered, a refused signature or release (the commands
#: that read, verify, install or update from one); the same number as a problem in the skills.
EXIT_CATALOG = 1
#: As click exits when the reader of standard output has gone (``skillsite ... | head -1``).
EXIT_BROKEN_PIPE = 1
