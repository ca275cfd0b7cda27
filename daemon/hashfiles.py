"""Where a daemon's hash files live, how much disk they may take, and how much table
memory its sessions may hold.

`HashFiles` confines `hash save`, `hash load` and the `HashFile` option to one directory
(`--hash-dir`, by default the user's data directory from platformdirs). A client names
a file there by a plain name: a name with a path separator, `..`, a leading dot or an
invisible character (`INVISIBLE`: controls, bidirectional and other format characters,
line and paragraph separators, private-use, surrogate and unassigned code points) is
refused for what it is, whatever exists; and a name that is allowed but has no regular
file behind it (missing, a link, a FIFO, a device, a directory) gets one answer, `no
hash file <name>`, so that a client learns nothing of what lies outside. Saves to one
file are taken one at a time, so that each reply says what the file then holds.

The directory is bounded on disk, in bytes (`--max-hash-dir-mib`) and in files
(`--max-hash-files`): a save that would take it past a bound, or further past one it
is already over, is refused before a byte is written (`HashFiles.room`). Every regular
file there counts, whoever wrote it, but the temporary files of saves under way; the
file to be written counts at its full size, and the file it replaces is counted out.
A save holds its room until its file is in place, so that saves running at once
cannot pass the check together.

With `--allow-hash-paths` (a local user on stdio) names are paths, as the user's own
shell would take them (invisible characters are refused there too: replies echo the
name), and the directory's bounds do not apply: the files are the user's own, wherever
the user may write.

`HashBudget` is the daemon-wide bound on table memory (`--max-hash-mib`): every table a
session holds is reserved against it, and given back when the session drops it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import threading
import unicodedata
from pathlib import Path
from typing import Iterator

import attrs
import platformdirs

from games.files import TEMPORARY_NAME, remove_stale_temporaries
from games.text import quote
from search.tt import HashFileError

LOG = logging.getLogger("engine.hashfiles")

#: The Unicode categories no hash file name may hold: controls (C0, DEL, C1), format
#: characters (bidirectional overrides, zero-width), line and paragraph separators,
#: private-use, surrogate and unassigned code points.
INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
#: The longest hash file name, in characters.
MAX_NAME = 128
#: The hash directory's byte budget by default, where the disk has room for it.
DEFAULT_MAX_BYTES = 4 << 30
#: The hash directory's file budget by default.
DEFAULT_MAX_FILES = 256


def default_directory() -> Path:
    """The user's data directory for hash files (platformdirs)."""
    return Path(platformdirs.user_data_dir("engine", appauthor=False)) / "hash"


def default_max_bytes(directory: Path) -> int:
    """The hash directory's byte budget when none is given: DEFAULT_MAX_BYTES, or less
    where the disk is short: what `directory` holds and half the free space of its file
    system (DEFAULT_MAX_BYTES where that cannot be read)."""
    try:
        free = shutil.disk_usage(directory).free
    except OSError:
        return DEFAULT_MAX_BYTES
    return min(DEFAULT_MAX_BYTES, sum(_held(directory).values()) + free // 2)


def _held(directory: Path) -> dict[str, int]:
    """The size of each regular file in `directory` by name, but the temporary files of
    saves under way (`games.files.atomic_file`); links are not followed."""
    held = {}
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return held
    for entry in entries:
        if TEMPORARY_NAME.match(entry.name):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                held[entry.name] = entry.stat(follow_symlinks=False).st_size
    return held


def _size(size: int) -> str:
    """`size` bytes for a message: in MiB, or in KiB below one MiB."""
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{size / 1024:.1f} KiB"


class HashFiles:
    """The daemon's rules for hash file names and for the disk the files take (see the
    module docstring). Thread-safe."""

    def __init__(self, directory: Path | None, allow_paths: bool = False, max_bytes: int | None = None,
                 max_files: int = DEFAULT_MAX_FILES):
        self.directory = (directory or default_directory()).expanduser().resolve()
        self.allow_paths = allow_paths
        #: The byte budget given, else None until `max_bytes` settles the default.
        self._max_bytes = max_bytes
        self.max_files = max_files
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        #: The room the saves under way hold, by file name: their files' sizes.
        self._writing: dict[str, int] = {}
        self._room_guard = threading.Lock()

    @property
    def max_bytes(self) -> int:
        """The directory's byte budget: the one given, else `default_max_bytes` as it is
        when first asked for (by `prepare`, once the directory exists)."""
        if self._max_bytes is None:
            self._max_bytes = default_max_bytes(self.directory)
        return self._max_bytes

    def prepare(self) -> None:
        """Create the directory (owner-only), remove the temporary files that a daemon
        killed while saving left there, and settle its budget. Raises OSError."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        for path in remove_stale_temporaries(self.directory):
            LOG.info("removed a temporary file left by an interrupted save: %s", path.name)
        if not self.allow_paths:
            LOG.info("hash directory %s: at most %s in %d files", self.directory, _size(self.max_bytes),
                     self.max_files)

    def path(self, name: str) -> str:
        """The file a client's `name` stands for; raises HashFileError(`name`) for a name
        with an INVISIBLE character, and in the directory for one that is not a plain
        name there. The message quotes the name with every such character escaped."""
        if any(unicodedata.category(char) in INVISIBLE for char in name):
            raise HashFileError("name", f"{quote(name)} is not a hash file name: it holds a control,"
                                        f" format, separator, private-use or unassigned character")
        if self.allow_paths:
            return os.path.expanduser(name)
        if not name or len(name) > MAX_NAME or name.startswith(".") or "/" in name or "\\" in name:
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

    @contextlib.contextmanager
    def room(self, path: str, size: int, name: str) -> Iterator[None]:
        """Hold room for the file of `size` bytes that the block writes at `path` (a
        `path(name)`, over any file there), until the block ends; the caller holds
        `lock(path)`. Raises HashFileError(`full`), naming the bound and its option, when
        the file would take the directory past its byte or file budget, or further past
        one it is already over (see the module docstring). With paths allowed, no bound
        applies."""
        if self.allow_paths:
            yield
            return
        target = os.path.basename(path)
        with self._room_guard:
            assert target not in self._writing, "saves of one file take its lock"
            held = _held(self.directory) | self._writing
            after = held | {target: size}
            used, needed = sum(held.values()), sum(after.values())
            if needed > self.max_bytes and needed > used:
                raise HashFileError("full", f"no room to save {quote(name)} ({_size(size)}): {_size(used)} of"
                                            f" the hash directory's {_size(self.max_bytes)} in use"
                                            f" (--max-hash-dir-mib)")
            if len(after) > self.max_files and len(after) > len(held):
                raise HashFileError("full", f"no room to save {quote(name)}: {len(held)} of the hash"
                                            f" directory's {self.max_files} files in use (--max-hash-files)")
            self._writing[target] = size
        try:
            yield
        finally:
            with self._room_guard:
                del self._writing[target]

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
