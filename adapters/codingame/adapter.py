"""The `engine-cg` command: a CodinGame bot that lets the engine choose its moves.

    engine-cg GAME [--connect HOST:PORT] [--engine CMD] [--option NAME=VALUE] [--stats]

It reads the CodinGame input of GAME on stdin and prints one move a line on stdout (see
`adapters.codingame.player` for how a turn is played). Without --connect it starts its
own engine on stdio (the `engine` command beside this Python, else
`python -m daemon.main`); with --connect it opens a session with a running
`engine --tcp` daemon.

The first turn's clock may already run while this process starts (a referee sends the
first input at once), and the engine takes a few hundred milliseconds to start and a few
more to load the game's compiled code. So this module imports almost nothing: it starts
the engine at once, then loads the rest while the engine starts, and it tells the player
when the process started.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time

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
    parser.add_argument("--connect", metavar="HOST:PORT",
                        help="use a running 'engine --tcp' daemon instead of starting one")
    parser.add_argument("--engine", metavar="CMD",
                        help="the engine command to start (default: engine beside this Python)")
    parser.add_argument("--option", metavar="NAME=VALUE", type=engine_option, action="append",
                        default=[], help="set an engine option (repeat for several), e.g. "
                        "MultiPlayerSearch=brs; one the engine refuses is reported on stderr")
    parser.add_argument("--stats", action="store_true",
                        help="write a timing line per turn on stderr")
    args = parser.parse_args(argv)
    if args.connect and args.engine:
        parser.error("--connect and --engine exclude each other")
    if args.connect and not args.connect.rpartition(":")[2].isdigit():
        parser.error(f"--connect wants HOST:PORT, got {args.connect!r}")
    return args


def main(argv: list[str] | None = None) -> int:
    started = process_started()
    args = parse_arguments(argv)
    args.started = started
    args.engine_command = shlex.split(args.engine) if args.engine else engine_command("--log-level", "warning")
    args.engine_env = single_blas_thread(os.environ)
    early = None
    if not args.connect:
        try:
            early = subprocess.Popen(args.engine_command, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0, env=args.engine_env)
        except OSError as error:
            sys.stderr.write(f"engine-cg: cannot start the engine {args.engine_command}: {error}\n")
    # This process reads turns with the games' rules interpreted and never compiles them:
    # without numba it is ready for its first turn a third of a second sooner.
    from games.kernel import interpret_kernels

    interpret_kernels()
    from adapters.codingame.player import play

    return play(args, early)


if __name__ == "__main__":
    sys.exit(main())
