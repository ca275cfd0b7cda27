"""The user's shared daemon: one `engine --socket` process that every tool of one install
finds, or starts on first use, so that compiled code, books and tables stay warm between
them (as language servers, `gradle --daemon` and `dmypy` do).

- Where: a socket in the user's runtime folder (platformdirs' `user_runtime_dir`, made
  mode 0700, whose permissions are the socket's authentication; `$ENGINE_RUNTIME_DIR`
  chooses another), named after `install_key()`, so that a changed checkout never talks
  to a daemon of other code. Beside it, the daemon's pid file and lock; its log goes to
  the user's log folder.
- `ensure_running()` returns where a daemon answers; else it takes the lock (two tools
  starting at once start one daemon), starts `engine --socket PATH --idle-exit SECONDS`
  detached in a session of its own, and waits until it answers. A socket left by a
  killed daemon is replaced; another install's is left alone.
- `protocol.client.Engine.shared()` opens a session there; `status()` and `stop()`
  serve `engine daemon status|stop|start`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import signal
import socket
import subprocess
import time
import warnings
from pathlib import Path
from typing import Iterator

import attrs
import platformdirs

from protocol.format import DaemonFigures
from protocol.launch import engine_command, single_blas_thread

_ROOT = Path(__file__).resolve().parent.parent
#: The packages a daemon runs: a change to any of their files makes another install key.
SERVED_PACKAGES = ("games", "search", "daemon", "protocol")
#: The environment variables a daemon reads (its core, books, hash files and compiled
#: code's cache): a tool whose values differ gets a daemon of its own.
DAEMON_ENVIRONMENT = ("ENGINE_CORE", "ENGINE_NO_NUMBA", "ENGINE_BOOK_DIR", "ENGINE_HASH_DIR", "ENGINE_NUMBA_CACHE")
#: A shared daemon ends once no session has been open this long (seconds).
DEFAULT_IDLE_EXIT_S = 1800
#: How long a start waits for the new daemon to answer (seconds): a cold numba cache
#: compiles only when a game is chosen, so this is Python's and numba's import.
START_WAIT_S = 60.0
#: How long `stop` waits for the daemon to end after SIGTERM (seconds).
STOP_WAIT_S = 30.0
#: A daemon's log past this size (bytes) is moved aside (`.1`, replacing the older one)
#: when the next daemon starts, so that the logs of one install stay bounded.
LOG_KEEP_BYTES = 4 << 20


def install_key() -> str:
    """What names this install's daemon: a digest of the package's version, of the
    path, size and modification time of every file of the packages a daemon runs
    (`SERVED_PACKAGES`, their caches aside), and of the daemon's environment variables
    (`DAEMON_ENVIRONMENT`). Reading no file's contents, it costs a couple of
    milliseconds, so a tool finds its daemon at once."""
    import importlib.metadata  # 30 ms: only where a key is made

    digest = hashlib.sha256()
    with contextlib.suppress(importlib.metadata.PackageNotFoundError):
        digest.update(importlib.metadata.version("engine").encode())
    for package in SERVED_PACKAGES:
        for folder, subfolders, files in os.walk(_ROOT / package):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in sorted(files):
                path = os.path.join(folder, name)
                with contextlib.suppress(FileNotFoundError):
                    info = os.stat(path)
                    digest.update(f"{os.path.relpath(path, _ROOT)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    for name in DAEMON_ENVIRONMENT:
        digest.update(f"{name}={os.environ.get(name)}\n".encode())
    return digest.hexdigest()[:16]


def require_private_folder(folder: Path) -> None:
    """Raise PermissionError unless `folder` is owned by this user and open to no one
    else (mode 0700 or stricter): its sockets' authentication."""
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


def _set_log_aside(log: Path) -> None:
    """Move a log past LOG_KEEP_BYTES aside (replacing the one set aside before)."""
    with contextlib.suppress(FileNotFoundError):
        if log.stat().st_size > LOG_KEEP_BYTES:
            log.replace(log.with_name(log.name + ".1"))


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
        _set_log_aside(place.log)
        with open(place.log, "a") as log:
            process = subprocess.Popen(
                engine_command("--socket", str(place.socket), "--idle-exit", str(idle_exit), "--log-level", "warning"),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                env=dict(single_blas_thread(os.environ),
                         PYTHONPATH=os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")]))))
        place.pid_file.write_text(f"{process.pid}\n")
        deadline = time.monotonic() + START_WAIT_S
        while not answers(place.socket):
            if process.poll() is not None or time.monotonic() > deadline:
                if process.poll() is None:
                    process.kill()
                raise OSError(f"the shared engine daemon did not start (exit status {process.poll()}):"
                              f" see {place.log}")
            time.sleep(0.01)
    return place


#: How long `load` waits for a game's compiled code and book (seconds): a cold cache of
#: compiled code compiles it, a minute or two.
LOAD_WAIT_S = 300.0


def load(place: Place, games: list[str], timeout: float = LOAD_WAIT_S) -> None:
    """Have the daemon at `place` load each of `games` (its compiled code and book:
    `setgame`, then `isready`), so that no later session's first search waits for them.
    Raises OSError saying why where the daemon cannot be reached or refuses a game."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
        channel.settimeout(timeout)
        channel.connect(str(place.socket))
        with channel.makefile("rw", encoding="utf-8", errors="replace", newline="\n") as session:
            for game in games:
                session.write(f"setgame {game}\nisready\n")
                session.flush()
                while (line := session.readline()) != "readyok\n":
                    if not line or line.startswith("error"):
                        raise OSError(f"the daemon did not load {game}: {line.strip() or 'it closed the session'}")


#: How long `status` waits for a daemon's `daemon` reply (seconds).
QUERY_WAIT_S = 5.0


def figures(path: Path, timeout: float = QUERY_WAIT_S) -> DaemonFigures | None:
    """The `daemon` reply of the daemon on the socket at `path`: its pid, sessions (but
    the one this asks in), searches and memory; None where none answers it within
    `timeout`."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
            channel.settimeout(timeout)
            channel.connect(str(path))
            channel.sendall(b"daemon\nquit\n")
            with channel.makefile("r", encoding="utf-8", errors="replace") as replies:
                about = DaemonFigures.parse(replies.readline())
    except (OSError, ValueError):
        return None
    return attrs.evolve(about, sessions=about.sessions - 1)


@attrs.frozen
class Status:
    """What `status` tells of a daemon found in the runtime folder: its install key, its
    socket, its `daemon` figures (None when it does not answer), whether it is this
    install's."""

    key: str
    socket: Path
    figures: DaemonFigures | None
    current: bool

    def line(self) -> str:
        name = f"{self.key}{' (this install)' if self.current else ''}"
        if self.figures is None:
            return f"{name}: not answering, socket {self.socket}"
        about = self.figures
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - about.uptime))
        games = ", ".join(about.games) or "none yet"
        return (f"{name}: running, pid {about.pid}, since {since}, {about.sessions} session(s)"
                f" ({about.searching} searching), {about.searches} of {about.max_searches} searches running,"
                f" {about.memory} MiB, games loaded: {games}; socket {self.socket}")


def _pid(place: Place) -> int | None:
    """The pid in `place`'s pid file, if that process still runs the daemon there."""
    try:
        pid = int(place.pid_file.read_text().split()[0])
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError, IndexError):
        return None
    return pid if str(place.socket).encode() in command else None


def _runs_daemon(pid: int) -> bool:
    """Whether process `pid` runs a daemon serving a socket (an ended one's command line
    is gone)."""
    try:
        return b"--socket" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def status(folder: Path | None = None) -> list[Status]:
    """Every shared daemon's socket in the runtime folder (this install's and others'),
    with what it answers to `daemon`."""
    folder = folder or runtime_folder()
    current = install_key()
    return [Status(path.stem.removeprefix("engine-"), path, figures(path), path.stem == f"engine-{current}")
            for path in sorted(folder.glob("engine-*.sock"))]


def stop(place: Place | None = None) -> bool:
    """End this install's daemon as SIGTERM does (it saves its sessions' hash files);
    whether one ran. Raises OSError when it does not end within STOP_WAIT_S."""
    place = place or Place.of()
    pid = _pid(place)
    if pid is None:  # a pid file lost: the daemon may still say its pid
        about = figures(place.socket)
        pid = None if about is None else about.pid
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT_S
    while _runs_daemon(pid):
        if time.monotonic() > deadline:
            raise OSError(f"the shared engine daemon (pid {pid}) did not end within {STOP_WAIT_S:.0f} s")
        time.sleep(0.05)
    place.pid_file.unlink(missing_ok=True)
    return True
