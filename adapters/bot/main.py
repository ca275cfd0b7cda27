"""The `engine-cg` command: a CodinGame bot that lets the engine choose its moves.

    engine-cg GAME [--private | --engine CMD | --connect HOST:PORT] [--option NAME=VALUE] [--stats]

It reads the CodinGame input of GAME on stdin and prints one move a line on stdout (see
`adapters.bot.player` for how a turn is played). By default it opens a session
with the user's shared daemon (`protocol.shared`), which it starts where none runs, so
that its compiled code and books are warm from the previous game on; should that fail
(`protocol.shared.open_session` says why: it is full, stuck, foreign or no engine) it says
why on stderr and starts an engine of its own, within the first turn's time.
`--private` starts an engine of its own on stdio (the `engine` command beside this
Python, else `python -m daemon.cli`), `--engine CMD` that command; `--connect` opens a
session with a running `engine --tcp` daemon.

The first turn's clock may already run while this process starts (a referee sends the
first input at once), and an engine of its own takes most of a second to start and load
the game's compiled code. So this module imports almost nothing: it finds the shared
daemon or starts the engine at once, then loads the rest meanwhile, and it tells the
player when the first input arrived (`FirstInput`).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import select
import shlex
import subprocess
import sys
import threading
import time

from adapters.bot.sharing import shared_session
from adapters.codingame import game_name
from protocol.launch import engine_command, single_blas_thread


def process_started() -> float:
    """When this process started, as a time.monotonic() value (from /proc on Linux, to
    the clock tick; else now)."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        ticks = int(fields[19])  # starttime, the 22nd field, in clock ticks since boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - max(age, 0.0)


class FirstInput:
    """When the first input arrived, watched from the start of `main` by a thread of its
    own while the process loads the rest (a few hundred milliseconds, more on a busy
    machine): a referee that starts every bot at once sends a later seat its first turn
    only when that seat's turn comes, and the turn's clock starts then, not when the
    process did. Input already there when the watch begins came while the interpreter
    started: it is dated at the process start (`started`)."""

    def __init__(self, started: float):
        self.started = started
        self._seen: float | None = None
        threading.Thread(target=self._watch, name="first-input", daemon=True).start()

    def _watch(self) -> None:
        try:
            if select.select([0], [], [], 0)[0]:
                self._seen = self.started
                return
            select.select([0], [], [])
        except (OSError, ValueError):
            self._seen = self.started
            return
        self._seen = time.monotonic()

    def arrived(self) -> float:
        """When the first input arrived, for lines already waiting when the player
        begins to read: as the watch saw it, else (the watch has not run yet) the
        process start, the earliest it can have been."""
        return self.started if self._seen is None else self._seen


def engine_option(text: str) -> tuple[str, str]:
    """NAME=VALUE, as given to --option."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip() or "\n" in text:
        raise argparse.ArgumentTypeError(f"wants NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="engine-cg",
        description="A CodinGame bot backed by the engine: CodinGame input on stdin, one move "
                    "a line on stdout.")
    parser.add_argument("game", type=game_name, metavar="GAME", help="the game, by its engine name")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--private", action="store_true",
                       help="start an engine of its own instead of using the user's shared daemon")
    where.add_argument("--engine", metavar="CMD",
                       help="start this engine command of its own (default: the user's shared daemon)")
    where.add_argument("--connect", metavar="HOST:PORT",
                       help="use a running 'engine --tcp' daemon instead of the user's shared one")
    parser.add_argument("--option", metavar="NAME=VALUE", type=engine_option, action="append",
                        default=[], help="set an engine option (repeat for several), e.g. "
                        "MultiPlayerSearch=brs; one the engine refuses is reported on stderr")
    parser.add_argument("--stats", action="store_true",
                        help="write a timing line per turn on stderr")
    parser.add_argument("--time-scale", type=float, default=1.0, metavar="X",
                        help="take CodinGame's time limits times X (default 1), as an arena run "
                             "with --time-scale X gives them")
    args = parser.parse_args(argv)
    if not args.time_scale > 0:
        parser.error(f"--time-scale wants a positive number, got {args.time_scale}")
    if args.connect and not args.connect.rpartition(":")[2].isdigit():
        parser.error(f"--connect wants HOST:PORT, got {args.connect!r}")
    return args


def find_shared_daemon(time_scale: float) -> concurrent.futures.Future:
    """The future of a session of the shared daemon (`shared_session`), found or started
    in a thread of its own while this process loads the rest."""
    future: concurrent.futures.Future = concurrent.futures.Future()

    def find() -> None:
        try:
            future.set_result(shared_session(time_scale))
        except BaseException as error:  # noqa: BLE001 - the player says why and starts its own
            future.set_exception(error)

    threading.Thread(target=find, name="shared-daemon", daemon=True).start()
    return future


def main(argv: list[str] | None = None) -> int:
    first_input = FirstInput(process_started())
    args = parse_arguments(argv)
    args.first_input = first_input
    args.engine_command = shlex.split(args.engine) if args.engine else engine_command("--log-level", "warning")
    args.engine_env = single_blas_thread(os.environ)
    args.shared = not (args.private or args.engine or args.connect)
    early: subprocess.Popen | concurrent.futures.Future | None = None
    if args.shared:
        early = find_shared_daemon(args.time_scale)
    elif not args.connect:
        try:
            early = subprocess.Popen(args.engine_command, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0, env=args.engine_env)
        except OSError as error:
            sys.stderr.write(f"engine-cg: cannot start the engine {args.engine_command}: {error}\n")
    # This process reads turns with the games' rules interpreted and never compiles them:
    # without numba it is ready for its first turn a third of a second sooner.
    from games.kernel import interpret_kernels

    interpret_kernels()
    from adapters.bot.player import play

    return play(args, early)


if __name__ == "__main__":
    sys.exit(main())
