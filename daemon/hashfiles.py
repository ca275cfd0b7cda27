"""Where a daemon's hash files live, and how much table memory its sessions may hold.

`HashFiles` confines `hash save`, `hash load` and the `HashFile` option to one directory
(`--hash-dir`, by default the user's data directory from platformdirs). A client names
a file there by a plain name: a name with a path separator, `..`, a leading dot or a
control character is refused for what it is, whatever exists; and a name that is
allowed but has no regular file behind it (missing, a link, a FIFO, a device, a
directory) gets one answer, `no hash file <name>`, so that a client learns nothing of
what lies outside. Saves to one file are taken one at a time, so that each reply says
what the file then holds. With `--allow-hash-paths` (a local user on stdio) names are
paths, as the user's own shell would take them.

`HashBudget` is the daemon-wide bound on table memory (`--max-hash-mib`): every table a
session holds is reserved against it, and given back when the session drops it.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from pathlib import Path

import attrs
import platformdirs

from games.files import remove_stale_temporaries
from games.text import quote
from search.tt import HashFileError

LOG = logging.getLogger("engine.hashfiles")

#: A hash file name in the directory: printable, no separator, no leading dot.
NAME = re.compile(r"^[^./\\\x00-\x1f\x7f][^/\\\x00-\x1f\x7f]{0,127}$")


def default_directory() -> Path:
    """The user's data directory for hash files (platformdirs)."""
    return Path(platformdirs.user_data_dir("engine", appauthor=False)) / "hash"


class HashFiles:
    """The daemon's rules for hash file names (see the module docstring)."""

    def __init__(self, directory: Path | None, allow_paths: bool = False):
        self.directory = (directory or default_directory()).expanduser().resolve()
        self.allow_paths = allow_paths
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def prepare(self) -> None:
        """Create the directory (owner-only), and remove the temporary files that a
        daemon killed while saving left there. Raises OSError."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        for path in remove_stale_temporaries(self.directory):
            LOG.info("removed a temporary file left by an interrupted save: %s", path.name)

    def path(self, name: str) -> str:
        """The file a client's `name` stands for; raises HashFileError(`name`) for a name
        that is not a plain name in the directory."""
        if self.allow_paths:
            return os.path.expanduser(name)
        if not NAME.match(name):
            raise HashFileError("name", f"{quote(name)} is not a hash file name: use a plain name"
                                        f" (no path, no leading dot) inside the hash directory")
        return str(self.directory / name)

    def describe(self, error: HashFileError, name: str) -> HashFileError:
        """The error a client sees: in the directory, every `missing` reads the same."""
        if error.kind == "missing" and not self.allow_paths:
            return HashFileError("missing", f"no hash file {quote(name)}")
        return error

    def lock(self, path: str) -> threading.Lock:
        """The lock that takes writes of one file one at a time."""
        with self._locks_guard:
            return self._locks.setdefault(os.path.abspath(path), threading.Lock())

    @property
    def follow_links(self) -> bool:
        """Whether reading follows a link: only for paths the user gives."""
        return self.allow_paths


def default_budget_mib() -> int:
    """Half the machine's memory, in MiB (4096 where it cannot be read)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 4096
    return max(64, total // 2 >> 20)


@attrs.define
class HashBudget:
    """The table memory every session of the daemon may hold together, in bytes.
    Thread-safe."""

    limit: int
    used: int = 0
    _guard: threading.Lock = attrs.field(factory=threading.Lock)

    def reserve(self, size: int) -> bool:
        """Take `size` bytes if they fit; whether they did."""
        with self._guard:
            if self.used + size > self.limit:
                return False
            self.used += size
            return True

    def release(self, size: int) -> None:
        with self._guard:
            self.used = max(0, self.used - size)

    def describe(self) -> str:
        return f"{self.used >> 20} of {self.limit >> 20} MiB of the daemon's hash budget in use"
