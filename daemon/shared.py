"""The user's shared daemon: one `engine --socket` process that every tool of one install
finds, or starts on first use, so that compiled code, books and tables stay warm between
them (as language servers, `gradle --daemon` and `dmypy` do).

- Where: a socket in the user's runtime folder (platformdirs' `user_runtime_dir`, made
  mode 0700; `$ENGINE_RUNTIME_DIR` chooses another), named after `install_key()`: a
  digest of the package's version and of the sources of every layer, so that a changed
  checkout never talks to a daemon of other code. Beside it, the daemon's pid file; its
  log goes to the user's log folder.
- `ensure_running()` connects where a daemon answers; else it takes a lock (two tools
  starting at once start one daemon), starts `engine --socket PATH --idle-exit SECONDS`
  detached in a session of its own, and waits until it answers. A socket left by a
  killed daemon is replaced (`daemon.main.prepare_socket_path`).
- `connect()` opens a session there; `status()` and `stop()` serve
  `engine daemon status|stop|start`.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import importlib.metadata
import os
import signal
import subprocess
import time
import warnings
from pathlib import Path
from typing import Iterator

import attrs
import platformdirs

from daemon.unix import answers, require_private_folder
from games.kernel import source_digest
from protocol.client import Engine
from protocol.launch import engine_command

_ROOT = Path(__file__).resolve().parent.parent
#: The packages whose sources make an install's key besides the kernels' (`source_digest`).
_SERVING = ("daemon", "protocol")
#: A shared daemon ends once no session has been open this long (seconds).
DEFAULT_IDLE_EXIT_S = 1800
#: How long a start waits for the new daemon to answer (seconds): a cold numba cache
#: compiles only when a game is chosen, so this is Python's and numba's import.
START_WAIT_S = 60.0
#: How long `stop` waits for the daemon to end after SIGTERM (seconds).
STOP_WAIT_S = 30.0


def install_key() -> str:
    """What names this install's daemon: a digest of the package's version, the kernels'
    sources (`games.kernel.source_digest`) and the daemon's and protocol's sources."""
    digest = hashlib.sha256()
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        digest.update(importlib.metadata.version("engine").encode())
    digest.update(source_digest().encode())
    for folder in _SERVING:
        for path in sorted((_ROOT / folder).rglob("*.py")):
            digest.update(str(path.relative_to(_ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def runtime_folder() -> Path:
    """The user's runtime folder for shared daemons, created mode 0700 where missing.
    Raises PermissionError where it is not the user's alone (`require_private_folder`)."""
    chosen = os.environ.get("ENGINE_RUNTIME_DIR")
    if chosen:
        folder = Path(chosen)
    else:
        with warnings.catch_warnings():  # without XDG_RUNTIME_DIR it falls back to /tmp, saying so
            warnings.simplefilter("ignore")
            folder = Path(platformdirs.user_runtime_dir("engine"))
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    require_private_folder(folder)
    return folder


@attrs.frozen
class Place:
    """Where the daemon of install `key` lives: its socket, pid file, lock and log."""

    key: str
    socket: Path
    pid_file: Path
    lock: Path
    log: Path

    @classmethod
    def of(cls, key: str | None = None, folder: Path | None = None) -> "Place":
        """The place of install `key` (this install's by default) in `folder` (the
        user's runtime folder by default)."""
        key = key or install_key()
        folder = folder or runtime_folder()
        logs = Path(platformdirs.user_log_dir("engine"))
        return cls(key, folder / f"engine-{key}.sock", folder / f"engine-{key}.pid", folder / f"engine-{key}.lock",
                   logs / f"daemon-{key}.log")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_running(place: Place | None = None, idle_exit: int = DEFAULT_IDLE_EXIT_S) -> Place:
    """The place of this install's daemon, started (detached, ending after `idle_exit`
    seconds without a session) when none answers there. Raises OSError, saying why and
    where its log is, when it cannot be started."""
    place = place or Place.of()
    if answers(place.socket):
        return place
    with _locked(place.lock):
        if answers(place.socket):  # another tool started it meanwhile
            return place
        place.log.parent.mkdir(parents=True, exist_ok=True)
        with open(place.log, "a") as log:
            process = subprocess.Popen(
                engine_command("--socket", str(place.socket), "--idle-exit", str(idle_exit)),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                env=dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(_ROOT),
                                                                              os.environ.get("PYTHONPATH")]))))
        place.pid_file.write_text(f"{process.pid}\n")
        deadline = time.monotonic() + START_WAIT_S
        while not answers(place.socket):
            if process.poll() is not None or time.monotonic() > deadline:
                if process.poll() is None:
                    process.kill()
                raise OSError(f"the shared engine daemon did not start (exit status {process.poll()}):"
                              f" see {place.log}")
            time.sleep(0.02)
    return place


async def connect(place: Place | None = None) -> Engine:
    """A session of this install's shared daemon, started first where none answers
    (`ensure_running`, off the loop). Raises OSError when it cannot be started or
    reached."""
    place = await asyncio.to_thread(ensure_running, place)
    return await Engine.connect_unix(place.socket)


@attrs.frozen
class Status:
    """What `status` tells of a daemon found in the runtime folder."""

    key: str
    socket: Path
    answers: bool
    pid: int | None
    since: float | None
    rss_mib: float | None
    current: bool

    def line(self) -> str:
        state = "running" if self.answers else "not answering"
        parts = [f"{self.key}{' (this install)' if self.current else ''}: {state}", f"socket {self.socket}"]
        if self.pid is not None:
            parts.append(f"pid {self.pid}")
        if self.since is not None:
            parts.append("since " + time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since)))
        if self.rss_mib is not None:
            parts.append(f"{self.rss_mib:.0f} MiB")
        return ", ".join(parts)


def _pid(place: Place) -> int | None:
    """The pid in `place`'s pid file, if that process still runs the daemon there."""
    try:
        pid = int(place.pid_file.read_text().split()[0])
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError, IndexError):
        return None
    return pid if str(place.socket).encode() in command else None


def _rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


def status(folder: Path | None = None) -> list[Status]:
    """Every shared daemon's socket in the runtime folder (this install's and others'),
    with its process where it is known."""
    folder = folder or runtime_folder()
    current = install_key()
    found = []
    for path in sorted(folder.glob("engine-*.sock")):
        place = Place.of(path.stem.removeprefix("engine-"), folder)
        pid = _pid(place)
        since = place.pid_file.stat().st_mtime if pid is not None else None
        found.append(Status(place.key, path, answers(path), pid, since, None if pid is None else _rss_mib(pid),
                            place.key == current))
    return found


def stop(place: Place | None = None) -> bool:
    """End this install's daemon as SIGTERM does (it saves its sessions' hash files);
    whether one ran. Raises OSError when it does not end within STOP_WAIT_S."""
    place = place or Place.of()
    pid = _pid(place)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT_S
    while _pid(place) is not None and Path(f"/proc/{pid}").exists():
        if time.monotonic() > deadline:
            raise OSError(f"the shared engine daemon (pid {pid}) did not end within {STOP_WAIT_S:.0f} s")
        time.sleep(0.05)
    place.pid_file.unlink(missing_ok=True)
    return True
