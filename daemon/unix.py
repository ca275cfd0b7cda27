"""Unix-domain sockets of daemons: a folder only the user can enter (whose permissions
are the sockets' authentication), whether a daemon answers on a socket, and a socket
path made ready for a new daemon to listen on."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path


def require_private_folder(folder: Path) -> None:
    """Raise PermissionError unless `folder` is owned by this user and open to no one
    else (mode 0700 or stricter)."""
    info = os.stat(folder)
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise PermissionError(f"{folder}: the socket's folder must be this user's alone (chmod 700)")


def answers(path: Path) -> bool:
    """Whether a daemon accepts connections on the socket at `path`."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


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
