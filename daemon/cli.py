"""The `engine` command's front door: what needs no engine in this process is served
without loading one (the game code, numba: half a second), everything else by
`daemon.main`.

    engine [ARGS]                     serve (daemon.main): stdio, --tcp, --socket
    engine --shared [--idle-exit S]   a stdio session of the user's shared daemon (protocol.relay)
    engine daemon start [--load GAME]|stop|status   the user's shared daemon (protocol.shared)
"""

from __future__ import annotations

import argparse
import sys

from protocol import shared


def idle_seconds(text: str) -> int:
    """--idle-exit's SECONDS: a whole number of at least 1 (checked here without the
    games' text helpers, whose package loads numpy)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return int(text)


def daemon_command(argv: list[str]) -> int:
    """`engine daemon start|stop|status`: the user's shared daemon (`protocol.shared`)."""
    parser = argparse.ArgumentParser(prog="engine daemon",
                                     description="The user's shared engine daemon, which the tools find or start.")
    parser.add_argument("action", choices=("start", "stop", "status"))
    parser.add_argument("--load", action="append", default=[], metavar="GAME",
                        help="start: also load GAME's compiled code and book (repeatable), so that no tool's"
                             " first search waits for them")
    parser.add_argument("--idle-exit", type=idle_seconds, default=shared.DEFAULT_IDLE_EXIT_S, metavar="SECONDS",
                        help=f"start: end after SECONDS without a session (default {shared.DEFAULT_IDLE_EXIT_S})")
    parser.add_argument("--all", action="store_true",
                        help="stop: every daemon of this user's, those of other versions of the code too"
                             " (an edited or re-checked-out tree starts a daemon of its own)")
    args = parser.parse_args(argv)
    if args.all and args.action != "stop":
        parser.error("--all is for stop")
    try:
        if args.action == "start":
            place = shared.ensure_running(idle_exit=args.idle_exit)
            shared.load(place, args.load)
            loaded = f", {' '.join(args.load)} loaded" if args.load else ""
            print(f"engine daemon: running{loaded}, socket {place.socket}, log {place.log}")
        elif args.action == "stop" and args.all:
            stopped = shared.stop_all()
            print(f"engine daemon: stopped {len(stopped)}: {' '.join(stopped)}" if stopped
                  else "engine daemon: none running")
        elif args.action == "stop":
            print("engine daemon: stopped" if shared.stop() else "engine daemon: not running")
        else:
            found = shared.status()
            print("\n".join(entry.line() for entry in found) if found else "engine daemon: none running")
            if any(not entry.current for entry in found):
                print("(another install's daemon serves code that has changed since: 'engine daemon stop --all'"
                      " ends it with this one)")
    except OSError as error:
        print(f"engine daemon: {error}", file=sys.stderr)
        return 1
    return 0


def shared_session(argv: list[str]) -> int:
    """`engine --shared [--idle-exit SECONDS]`: stdio as a session of the shared daemon."""
    parser = argparse.ArgumentParser(prog="engine --shared",
                                     description="A stdio session of the user's shared engine daemon.")
    parser.add_argument("--shared", action="store_true", required=True)
    parser.add_argument("--idle-exit", type=idle_seconds, default=shared.DEFAULT_IDLE_EXIT_S, metavar="SECONDS",
                        help="where it starts the daemon: the daemon ends after SECONDS without a session"
                             f" (default {shared.DEFAULT_IDLE_EXIT_S})")
    args = parser.parse_args(argv)
    from protocol.relay import relay

    return relay(args.idle_exit)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["daemon"]:
        return daemon_command(argv[1:])
    if "--shared" in argv:
        return shared_session(argv)
    from daemon.main import main as serve

    return serve(argv)


if __name__ == "__main__":
    sys.exit(main())
