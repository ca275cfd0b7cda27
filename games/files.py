"""Files written whole or not at all: hash files, self-play shards, opening books.

`atomic_file` writes into a temporary file of its own beside the target, named
`.<target name>.<pid>.<random>.tmp`, syncs it, renames it over the target and syncs the
directory: a reader sees the old file or the new one, never a part, and two writers of
one target never share a temporary file. A writer that dies leaves its temporary file
behind; `remove_stale_temporaries` removes those whose process is gone.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path
from typing import IO, Iterator

#: What a temporary file's name looks like: `.<target>.<pid>.<random>.tmp`.
TEMPORARY_NAME = re.compile(r"^\.(?P<target>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "wb",
                encoding: str | None = None) -> Iterator[IO]:
    """Open a new temporary file beside `path` for writing (`mode` "wb" or "w"); when the
    block ends without error, make it `path` atomically. If the block raises, the
    temporary file is removed, `path` is left as it was, and the error propagates.
    OSError comes from the file system (no directory, no space, no permission)."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp",
                                         dir=target.parent)
    try:
        with os.fdopen(handle, mode, encoding=encoding) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(target.parent)


def _sync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable (where the platform allows it)."""
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process has not written there yet (see below)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temporaries(directory: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files of `atomic_file` in `directory` whose writing process
    no longer runs; the paths removed. Files of other running writers, and every other
    file, are left alone. Call it before this process writes there: files named with its
    own process id are taken for a dead writer's that had the same id."""
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        match = TEMPORARY_NAME.match(entry.name)
        if match is None or not entry.is_file(follow_symlinks=False) or _running(int(match["pid"])):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed
