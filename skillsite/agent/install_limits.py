"""How much one install may fetch (standard library only).

Each response is capped by the catalog's ``max_bytes``; an install (a skill, its nested skills
and the skills it needs) is capped as a whole too, in bytes and in files, since it holds what
it fetched until it writes it: a catalog listing thousands of files, each under the cap, must
not fill the memory or the disk of whoever installs from it.
"""
from __future__ import annotations

from skillsite.agent.errors import TooLargeError

MAX_INSTALL_BYTES = 512 * 1024 * 1024
MAX_INSTALL_FILES = 20_000
#: The most folders a file an install writes may be in, below the skill's folder.  A build searches
#: 100 levels below its source at most; a path a thousand folders deep (a hand-made catalog's)
#: cannot be replaced by the next install: Python's shutil.rmtree calls itself once per folder.
MAX_INSTALL_DEPTH = 128


class InstallAllowance:
    """What an install plans to fetch and has fetched so far; TooLargeError past either limit."""

    def __init__(self, location: str) -> None:
        self.location, self.max_bytes, self.max_files = location, MAX_INSTALL_BYTES, MAX_INSTALL_FILES
        self.bytes = self.files = 0

    def plan(self, skill_id: str, files: int) -> None:
        """Count the ``files`` of ``skill_id`` about to be fetched: refused before any is."""
        self.files += files
        if self.files > self.max_files:
            self._refuse(skill_id, f"more than {self.max_files:,} files")

    def take(self, skill_id: str, data: bytes) -> bytes:
        """Count ``data`` (a file of ``skill_id``, fetched) and give it back, or refuse the install."""
        self.bytes += len(data)
        if self.bytes > self.max_bytes:
            self._refuse(skill_id, f"more than {self.max_bytes:,} bytes")
        return data

    def _refuse(self, skill_id: str, what: str) -> None:
        raise TooLargeError(f"{self.location}: installing {skill_id} would fetch {what} in all; refusing it",
                            self.location)
