"""A Unix-domain socket path made ready for a new daemon to listen on (the folder's
checks and whether a daemon answers are the client's: `protocol.shared`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from protocol.shared import answers, require_private_folder


def prepare_socket_path(path: Path) -> None:
    """Make `path` ready for a Unix-domain socket to listen there: its folder must be
    the user's alone (`require_private_folder`); a socket file there that no daemon
    answers on any more is removed. Raises OSError saying why otherwise (another daemon
    listens there, or something else is in the way)."""
    require_private_folder(path.parent)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise FileExistsError(f"{path}: exists and is not a socket")
    if answers(path):
        raise FileExistsError(f"{path}: a daemon already listens there")
    os.unlink(path)  # stale: its daemon is gone
