"""What `engine-analyse` says when it cannot write its outputs: each write is made
`writing` the file, so that the file system's error names that file in words, and each
folder it writes in is checked (`check_folder`) before the analysis starts, so that no
analysis is made for nowhere."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Iterator


class CannotWrite(Exception):
    """A file or folder `engine-analyse` cannot write: which, and why, in words."""


@contextlib.contextmanager
def writing(path: Path) -> Iterator[None]:
    """A block that writes `path` (or in the folder `path`): its OSError is raised as
    CannotWrite naming `path`."""
    try:
        yield
    except OSError as error:
        raise CannotWrite(f"cannot write {path}: {error.strerror or error}") from None


def check_folder(folder: Path) -> None:
    """Make `folder`, with its parents, where missing, and check that a file can be
    made in it; raises CannotWrite saying why not."""
    if folder.exists() and not folder.is_dir():
        raise CannotWrite(f"cannot write in {folder}: not a folder")
    with writing(folder):
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
