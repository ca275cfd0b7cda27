"""The user's shared daemon: one `engine --socket` process that every tool of one install
finds, or starts on first use, so that compiled code, books and tables stay warm between
them (as language servers, `gradle --daemon` and `dmypy` do).

- Where: a socket in the user's runtime folder (platformdirs' `user_runtime_dir`, made
  mode 0700, whose permissions are the socket's authentication; `$ENGINE_RUNTIME_DIR`
  chooses another), named after `install_key()`, so that a changed checkout never talks
  to a daemon of other code. Beside it, the daemon's pid file and lock; its log goes to
  the user's log folder.
- Trust: every folder on the way to the socket must be this user's or root's and
  writable by no one else (`open_private_folder`); the socket is reached through the
  folder so checked, never by its path again, and the process listening there must run
  as this user (`SO_PEERCRED`) before a byte is sent.
- `open_session()` returns a session that has answered `isready`, starting the daemon
  (detached, in a session of its own) where none runs. It never waits without bound:
  a daemon that does not answer, answers garbage or floods, a lock held by a stopped
  or stuck process, a stopped daemon, a full one are each an `Unusable` error saying
  why, within its `wait` (a daemon coming up that is alive and running may take
  `start_wait`), so that each tool runs an engine of its own instead.
- `protocol.client.Engine.shared()` opens a session there; `status()` and `stop()`
  serve `engine daemon status|stop|start`.
"""

from __future__ import annotations

import contextlib
import hashlib
import fcntl
import os
import signal
import socket
import stat
import struct
import subprocess
import time
import warnings
from pathlib import Path

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
#: How long a tool waits on what should take no time: a running daemon's answer to its
#: `isready`, the start lock held by another tool (seconds). Past it, the daemon is
#: unusable for now.
CONNECT_WAIT_S = 5.0
#: How long a new daemon that is alive and running may take to listen (seconds): a cold
#: numba cache compiles only when a game is chosen, so this is Python's and numba's
#: import, on a machine as busy as it may be.
START_WAIT_S = 60.0
#: A daemon's first answer must end its line within this many bytes.
HANDSHAKE_BYTES = 4096
#: How long `stop` waits for the daemon to end after SIGTERM (seconds).
STOP_WAIT_S = 30.0
#: A daemon's log past this size (bytes) is moved aside (`.1`, replacing the older one),
#: by the daemon as it writes and by the next start, so that the logs stay bounded.
LOG_KEEP_BYTES = 4 << 20
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class Unusable(OSError):
    """The shared daemon cannot be used now; the message says why, for the user."""


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


def _check_folder(fd: int, path: str, last: bool) -> None:
    info = os.fstat(fd)
    if last:
        if info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise PermissionError(f"{path}: the socket's folder must be this user's alone (chmod 700)")
    elif info.st_uid not in (os.getuid(), 0) or (info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX):
        raise PermissionError(f"{path}: a folder on the way to the socket's must be this user's or root's and"
                              " writable by no one else")


def open_private_folder(folder: Path) -> int:
    """An open descriptor of `folder` (the caller closes it), once every folder on the
    way from the root is this user's or root's and writable by no one else (one that
    others may write but whose sticky bit keeps them from replacing what is in it, as
    /tmp's does, passes), and `folder` itself is this user's alone (mode 0700 or
    stricter). Links are followed once, to find the real path, whose folders are then
    opened one by one without following any: what is swapped in meanwhile is refused,
    never trusted. Raises PermissionError naming the folder that fails."""
    parts = [part for part in os.path.realpath(folder).split(os.sep) if part]
    fd, path = os.open(os.sep, _FOLDER_FLAGS), os.sep
    try:
        _check_folder(fd, path, not parts)
        for index, part in enumerate(parts):
            path = os.path.join(path, part)
            try:
                child = os.open(part, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as error:
                raise PermissionError(f"{path}: changed while it was checked ({error.strerror})") from None
            os.close(fd)
            fd = child
            _check_folder(fd, path, index == len(parts) - 1)
    except BaseException:
        os.close(fd)
        raise
    return fd


def require_private_folder(folder: Path) -> None:
    """Raise PermissionError unless `folder` and the way to it pass `open_private_folder`."""
    os.close(open_private_folder(folder))


def runtime_folder() -> Path:
    """The real path of the user's runtime folder for shared daemons, created mode 0700
    where missing. Raises PermissionError where it or the way to it is not safe
    (`open_private_folder`)."""
    chosen = os.environ.get("ENGINE_RUNTIME_DIR")
    if chosen:
        folder = Path(chosen)
    else:
        with warnings.catch_warnings():  # without XDG_RUNTIME_DIR it falls back to /tmp, saying so
            warnings.simplefilter("ignore")
            folder = Path(platformdirs.user_runtime_dir("engine"))
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    require_private_folder(folder)
    return Path(os.path.realpath(folder))


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


# ---- one process and its state --------------------------------------------------------

def process_state(pid: int) -> str:
    """Process `pid`'s state letter (`R`, `S`, `T` stopped, `Z`, ...), "" where it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return ""


def _stopped(pid: int) -> bool:
    return process_state(pid) in ("T", "t")


def _serves(pid: int, path: Path) -> bool:
    """Whether process `pid` runs a daemon of the socket at `path` (a live one: not a
    zombie), or is becoming one (a process still in its `exec` shows no command line)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return (not command or str(path).encode() in command.split(b"\0")) and process_state(pid) not in ("", "Z", "X")


def _read_in(folder: int, name: str) -> str | None:
    """The text of file `name` in the folder open as `folder` (never through a link)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read(256).decode(errors="replace")


def _recorded_pid(place: Place, folder: int) -> int | None:
    """The pid in `place`'s pid file if that process still runs the daemon there."""
    text = _read_in(folder, place.pid_file.name)
    try:
        pid = int((text or "").split()[0])
    except (ValueError, IndexError):
        return None
    return pid if _serves(pid, place.socket) else None


def _starting_pid(place: Place, folder: int) -> int | None:
    """The daemon of `place` being started (its pid file younger than START_WAIT_S, its
    process live), if one is."""
    pid = _recorded_pid(place, folder)
    if pid is None:
        return None
    with contextlib.suppress(OSError):
        if time.time() - os.stat(place.pid_file.name, dir_fd=folder, follow_symlinks=False).st_mtime < START_WAIT_S:
            return pid
    return None


# ---- reaching a daemon -----------------------------------------------------------------

def answers(path: Path) -> bool:
    """Whether something accepts connections on the socket at `path` (nothing is sent)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
            return True
        except OSError:
            return False


def _via(folder: int, name: str) -> str:
    """A path of `name` in the folder open as `folder` that the kernel resolves through
    that descriptor (Linux's /proc/self/fd), not through the folder's path again."""
    return f"/proc/self/fd/{folder}/{name}"


def _peer(channel: socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process that listens at the other end of `channel`."""
    pid, uid, _ = struct.unpack("3i", channel.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                         struct.calcsize("3i")))
    return pid, uid


def _connect(path: Path, folder: int, timeout: float) -> socket.socket | None:
    """A connection to the socket at `path` through `folder`, its folder checked and
    open, or None where no one listens there. Raises Unusable where the listening
    process is not this user's (nothing is sent to it) or takes no connection within
    `timeout`."""
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        channel.settimeout(timeout)
        try:
            channel.connect(_via(folder, path.name))
        except (FileNotFoundError, ConnectionRefusedError):
            channel.close()
            return None
        except socket.timeout:
            raise Unusable(f"its socket takes no connection within {timeout:.1f} s") from None
        pid, uid = _peer(channel)
        if uid != os.getuid():
            raise Unusable(f"the process listening on {path} (pid {pid}) runs as uid {uid},"
                           " not as this user: nothing was sent to it")
    except BaseException:
        channel.close()
        raise
    return channel


def _handshake(channel: socket.socket, hello: bytes, wait: float) -> None:
    """Send `hello` and `isready` on `channel` and read its one line `readyok`, within
    `wait` seconds and HANDSHAKE_BYTES; raise Unusable saying what came instead."""
    deadline = time.monotonic() + wait
    try:
        channel.sendall(hello + b"isready\n")
    except (BrokenPipeError, ConnectionResetError):
        pass  # it closed at once: what it wrote first, if anything, is still to be read
    answer = b""
    while b"\n" not in answer:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise socket.timeout
            channel.settimeout(remaining)
            chunk = channel.recv(HANDSHAKE_BYTES)
        except socket.timeout:
            raise Unusable(f"it did not answer isready within {wait:.1f} s") from None
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise Unusable(f"it closed the session{f' after {answer[:80]!r}' if answer else ''}")
        answer += chunk
        if len(answer) > HANDSHAKE_BYTES:
            raise Unusable(f"it answered isready with {len(answer)} bytes and no line: it is no engine")
    line, _, rest = answer.partition(b"\n")
    text = line.decode(errors="replace").strip()
    if text.startswith("error busy"):
        raise Unusable(f"it is full ({text})")
    if text != "readyok" or rest:
        raise Unusable(f"it answered isready with {answer[:80]!r}: it is no engine of this install")
    channel.settimeout(None)


def _open_log(log: Path) -> int:
    """The daemon's log opened for appending, in a folder of the user's alone (0700) and
    readable by the user alone (0600); a log past LOG_KEEP_BYTES is set aside first."""
    log.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(log.parent, 0o700)
    with contextlib.suppress(FileNotFoundError):
        if log.stat().st_size > LOG_KEEP_BYTES:
            log.replace(log.with_name(log.name + ".1"))
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    os.fchmod(fd, 0o600)
    return fd


def _lock_holder(fd: int) -> int | None:
    """The pid holding the flock on the file open as `fd` (from /proc/locks), if known."""
    info = os.fstat(fd)
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    with contextlib.suppress(OSError):
        for line in Path("/proc/locks").read_text().splitlines():
            fields = line.split()
            if "->" not in fields and len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == device:
                return int(fields[4])
    return None


def _start(place: Place, folder: int, idle_exit: int, wait: float) -> subprocess.Popen | None:
    """Start `place`'s daemon, under its lock (two tools starting at once start one),
    detached in a session of its own; None where one answers or is being started by
    then. Raises Unusable where the lock stays held `wait` seconds, or is held by a
    stopped process."""
    lock = os.open(place.lock.name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _lock_holder(lock)
                if holder is not None and _stopped(holder):
                    raise Unusable(f"its start lock {place.lock} is held by a stopped process (pid {holder})") from None
                if time.monotonic() > deadline:
                    raise Unusable(f"its start lock {place.lock} has been held for {wait:.1f} s by"
                                   f" {f'pid {holder}' if holder else 'another process'}") from None
                time.sleep(0.01)
        try:
            channel = _connect(place.socket, folder, wait)
            if channel is not None:
                channel.close()
                return None
            if _starting_pid(place, folder) is not None:
                return None
            log = _open_log(place.log)
            try:
                process = subprocess.Popen(
                    engine_command("--socket", str(place.socket), "--idle-exit", str(idle_exit), "--log-level",
                                   "warning", "--log-file", str(place.log)),
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                    env=dict(single_blas_thread(os.environ),
                             PYTHONPATH=os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")]))))
            finally:
                os.close(log)
            pid_file = os.open(place.pid_file.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
                               | os.O_CLOEXEC, 0o600, dir_fd=folder)
            with os.fdopen(pid_file, "w") as handle:
                handle.write(f"{process.pid}\n")
            return process
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    finally:
        os.close(lock)


def open_session(place: Place | None = None, idle_exit: int = DEFAULT_IDLE_EXIT_S, wait: float = CONNECT_WAIT_S,
                 start_wait: float = START_WAIT_S, hello: bytes = b"") -> socket.socket:
    """A session of this install's daemon (at `place`) that has taken `hello` and answered
    `isready`, as a connected blocking socket; the daemon is started where none runs (it
    then ends after `idle_exit` seconds without a session).

    Raises Unusable (an OSError), saying why, where the daemon cannot be used: the
    runtime folder is unsafe (PermissionError), the process listening is not this
    user's, the answer is not `readyok` (garbage, a flood, `error busy`: full) or takes
    over `wait` seconds, the start lock stays held `wait` seconds or is held by a stopped
    process, the daemon is stopped or does not start within `start_wait` seconds."""
    place = place or Place.of()
    folder = open_private_folder(place.socket.parent)
    try:
        begun, started = time.monotonic(), None
        while True:
            channel = _connect(place.socket, folder, wait)
            if channel is not None:
                with contextlib.ExitStack() as on_error:
                    on_error.callback(channel.close)
                    _handshake(channel, hello, wait)
                    on_error.pop_all()
                return channel
            if started is not None and started.poll() is not None:
                raise Unusable(f"the daemon did not start (exit status {started.returncode}): see {place.log}")
            starting = started.pid if started is not None else _starting_pid(place, folder)
            if starting is None:
                started = _start(place, folder, idle_exit, wait)
                continue
            if _stopped(starting):
                raise Unusable(f"the daemon being started (pid {starting}) is stopped")
            if time.monotonic() - begun > start_wait:
                raise Unusable(f"the daemon (pid {starting}) does not listen after {start_wait:.1f} s: see {place.log}")
            time.sleep(0.01)
    finally:
        os.close(folder)


def ensure_running(place: Place | None = None, idle_exit: int = DEFAULT_IDLE_EXIT_S,
                   wait: float = CONNECT_WAIT_S) -> Place:
    """The place of this install's daemon once a session of it has answered (started
    where none runs, `open_session`). Raises Unusable saying why where it cannot be used."""
    place = place or Place.of()
    open_session(place, idle_exit, wait).close()
    return place


#: How long `load` waits for a game's compiled code and book (seconds): a cold cache of
#: compiled code compiles it, a minute or two.
LOAD_WAIT_S = 300.0


def load(place: Place, games: list[str], timeout: float = LOAD_WAIT_S) -> None:
    """Have the daemon at `place` load each of `games` (its compiled code and book:
    `setgame`, then `isready`), so that no later session's first search waits for them.
    Raises OSError saying why where the daemon cannot be used or refuses a game."""
    with open_session(place) as channel:
        channel.settimeout(timeout)
        with channel.makefile("rw", encoding="utf-8", errors="replace", newline="\n") as session:
            for game in games:
                session.write(f"setgame {game}\nisready\n")
                session.flush()
                while (line := session.readline(HANDSHAKE_BYTES)) != "readyok\n":
                    if not line or line.startswith("error"):
                        raise OSError(f"the daemon did not load {game}: {line.strip() or 'it closed the session'}")


# ---- every daemon of the user's --------------------------------------------------------

#: How long `status` waits for a daemon's `daemon` reply (seconds).
QUERY_WAIT_S = 5.0


def figures(path: Path, timeout: float = QUERY_WAIT_S) -> DaemonFigures | None:
    """The `daemon` reply of this user's daemon on the socket at `path`: its pid,
    sessions (but the one this asks in), searches and memory; None where none answers
    it within `timeout`."""
    try:
        folder = open_private_folder(path.parent)
    except OSError:
        return None
    try:
        channel = _connect(path, folder, timeout)
        if channel is None:
            return None
        with channel:
            channel.settimeout(timeout)
            channel.sendall(b"daemon\nquit\n")
            with channel.makefile("r", encoding="utf-8", errors="replace") as replies:
                about = DaemonFigures.parse(replies.readline(HANDSHAKE_BYTES))
    except (OSError, ValueError):
        return None
    finally:
        os.close(folder)
    return attrs.evolve(about, sessions=about.sessions - 1)


@attrs.frozen
class Status:
    """What `status` tells of a daemon found in the runtime folder: its install key, its
    socket, its `daemon` figures (None when it does not answer), whether it is this
    install's, and the pid its pid file names where that process still runs it."""

    key: str
    socket: Path
    figures: DaemonFigures | None
    current: bool
    pid: int | None = None

    def line(self) -> str:
        name = f"{self.key}{' (this install)' if self.current else ' (another install)'}"
        if self.figures is None:
            if self.pid is None:
                return f"{name}: not answering, no process: a socket left by a daemon that was killed; {self.socket}"
            state = "stopped (SIGSTOP or Ctrl-Z)" if _stopped(self.pid) else "running"
            return f"{name}: not answering, pid {self.pid} {state}; socket {self.socket}"
        about = self.figures
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - about.uptime))
        games = ", ".join(about.games) or "none yet"
        return (f"{name}: running, pid {about.pid}, since {since}, {about.sessions} session(s)"
                f" ({about.searching} searching), {about.searches} of {about.max_searches} searches running,"
                f" {about.memory} MiB, games loaded: {games}; socket {self.socket}")


def _found(folder: Path) -> list[Place]:
    """The places of every install's daemon with a socket or a pid file in `folder`."""
    keys = {path.name.removeprefix("engine-").rsplit(".", 1)[0]
            for pattern in ("engine-*.sock", "engine-*.pid") for path in folder.glob(pattern)}
    return [Place.of(key, folder) for key in sorted(keys)]


def _live_pid(place: Place) -> int | None:
    """The pid of `place`'s daemon, from its pid file or, where that is lost, its answer."""
    try:
        folder = open_private_folder(place.socket.parent)
    except OSError:
        return None
    try:
        pid = _recorded_pid(place, folder)
    finally:
        os.close(folder)
    if pid is None:
        about = figures(place.socket)
        pid = None if about is None else about.pid
    return pid


def status(folder: Path | None = None) -> list[Status]:
    """Every shared daemon of this user's in the runtime folder (this install's and
    others'), with what it answers to `daemon` and the pid its pid file names."""
    folder = folder or runtime_folder()
    current = install_key()
    found = []
    for place in _found(folder):
        about = figures(place.socket) if place.socket.exists() else None
        pid = about.pid if about is not None else _live_pid(place)
        if about is not None or pid is not None or place.socket.exists():
            found.append(Status(place.key, place.socket, about, place.key == current, pid))
    return found


def stop(place: Place | None = None) -> bool:
    """End this install's daemon (at `place`) as SIGTERM does (it saves its sessions'
    hash files; a stopped one is continued to take it); whether one ran. Raises OSError
    when it does not end within STOP_WAIT_S."""
    place = place or Place.of()
    pid = _live_pid(place)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    os.kill(pid, signal.SIGCONT)
    deadline = time.monotonic() + STOP_WAIT_S
    while _serves(pid, place.socket):
        if time.monotonic() > deadline:
            raise OSError(f"the shared engine daemon (pid {pid}) did not end within {STOP_WAIT_S:.0f} s")
        time.sleep(0.05)
    place.pid_file.unlink(missing_ok=True)
    return True


def stop_all(folder: Path | None = None) -> list[str]:
    """End every daemon of this user's in the runtime folder, this install's and those
    of other versions of the code (`stop`); the install keys of those that ran."""
    return [place.key for place in _found(folder or runtime_folder()) if stop(place)]
