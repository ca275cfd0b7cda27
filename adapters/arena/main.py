"""The `engine-arena` command: matches between CodinGame bots, and replay pages.

    engine-arena GAME --bot CMD --bot CMD [--bot CMD] --games N [--time-scale X]
                 [--jobs J] [--seed S] [--out DIR] [--openings FILE]
                 [--sprt elo0=0 elo1=5 alpha=0.05 beta=0.05] [--ray local|auto|ADDRESS]
    engine-arena replay RECORD.json [-o PAGE.html]

A bot is a command line (split as a shell would, run without a shell) or a shortcut:
`random` and `greedy` (the example bots), `engine` (`engine-cg GAME`, on the user's
shared daemon; `engine-cg GAME --private` is a bot with an engine of its own). `NAME=CMD` names a bot in the table. Seats missing from the list are filled
with `greedy`, then `random`.

With `--sprt` the match is a sequential test of the first bot against the others:
`--games` is then the most it plays, and it stops as soon as the test decides.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

from adapters.arena.openings import OpeningError, openings_option
from adapters.arena.referee import GameSpec, plan, play_game, seat_orders
from adapters.arena.stats import Sprt, sprt_units, table, tally
from adapters.codingame import game_name, turn_format
from adapters.pool import Runs, ray_argument
from protocol import shared

_NAMED = re.compile(r"^([A-Za-z][\w.+-]*)=(\S.*)$")


def shortcut(name: str, game: str) -> str | None:
    """The command of a shortcut bot name, or None."""
    python = shlex.quote(sys.executable)
    if name in ("random", "greedy"):
        return f"{python} -m adapters.bot.bots {name} {game}"
    if name == "engine":
        script = Path(sys.executable).parent / "engine-cg"
        if script.exists():
            return f"{shlex.quote(str(script))} {game}"
        return f"{python} -m adapters.bot.main {game}"
    return None


def resolve_bots(texts: list[str], game: str, players: int) -> list[tuple[str, str]]:
    """(name, command) per bot, the seats filled up with greedy and random bots; names
    made unique."""
    texts = list(texts)
    for default in ("greedy", "random"):
        if len(texts) < players:
            texts.append(default)
    bots: list[tuple[str, str]] = []
    for text in texts:
        match = _NAMED.match(text)
        name, command = (match.group(1), match.group(2)) if match else (text, text)
        command = shortcut(command, game) or command
        taken = {bot_name for bot_name, _ in bots}
        unique, number = name, 2
        while unique in taken:
            unique, number = f"{name}#{number}", number + 1
        bots.append((unique, command))
    return bots


def prepare_shared_daemon(game: str, bots: list[tuple[str, str]]) -> None:
    """Where a bot is the `engine` shortcut (`engine-cg GAME` on the user's shared
    daemon), start the daemon where none runs and load `game`'s compiled code and book in
    it (`setgame`, then `isready`) before the first game's clock runs, as a user who
    plays a match would have done (`engine daemon start --load GAME`): the first turn of the first
    game would otherwise pay for the daemon's start, about a second on a busy machine,
    and fall back. Said on stderr where the daemon cannot be used: the bots then say why
    and start engines of their own."""
    if not any(command == shortcut("engine", game) for _, command in bots):
        return
    try:
        shared.load(shared.ensure_running(), [game])
    except OSError as error:
        print(f"engine-arena: the shared engine daemon cannot be prepared ({error})", file=sys.stderr)


def run_game(spec: GameSpec) -> dict:
    """Play one game in a fresh event loop (a worker process's job)."""
    return asyncio.run(play_game(spec))


def parse_match_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="engine-arena",
        description="Referee CodinGame bots locally with the engine's rules and CodinGame's "
                    "turn input, time limits and output parsing. "
                    "'engine-arena replay RECORD.json -o PAGE.html' draws a recorded game.")
    parser.add_argument("game", type=game_name, metavar="GAME", help="the game, by its engine name")
    parser.add_argument("--bot", action="append", default=[], metavar="CMD",
                        help="a bot: a command, random, greedy or engine; NAME=CMD names it "
                             "(repeat: one per player)")
    parser.add_argument("--games", type=int, default=None,
                        help="games to play (default 10, or every opening once with every seat "
                             "order; with --sprt, 10,000)")
    parser.add_argument("--time-scale", type=float, default=1.0, metavar="X",
                        help="multiply CodinGame's time limits by X (default 1)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                        help="games played at once (default: the number of cores)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="first seed: a seeded start position, the bots' ARENA_SEED, and "
                             "the referee's random moves (default 0)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="directory for the game records (default arena-out/GAME-TIME)")
    parser.add_argument("--openings", type=Path, default=None, metavar="FILE",
                        help="play each opening of FILE (moves from the start, one opening a "
                             "line) with every seat order; --games defaults to all of them once")
    parser.add_argument("--sprt", nargs="+", default=None, metavar="KEY=VALUE",
                        help="a sequential test of the first bot: elo0= elo1= alpha= beta= "
                             "(defaults 0 5 0.05 0.05); --games is the most it plays")
    parser.add_argument("--ray", type=ray_argument, default=None, metavar="local|auto|ADDRESS",
                        help="play the games as Ray tasks: on a private local cluster of --jobs "
                             "CPUs, the cluster this machine is in, or the head at ADDRESS")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    if args.games is not None and args.games < 1 or args.jobs < 1 or args.time_scale <= 0:
        parser.error("--games and --jobs must be at least 1, --time-scale positive")
    args.sprt = Sprt.option(args.sprt, parser)
    return args


def match(argv: list[str]) -> int:
    args = parse_match_arguments(argv)
    fmt = turn_format(args.game)
    if len(args.bot) > fmt.PLAYERS:
        print(f"engine-arena: {args.game} has {fmt.PLAYERS} players, got {len(args.bot)} bots",
              file=sys.stderr)
        return 2
    bots = resolve_bots(args.bot, args.game, fmt.PLAYERS)
    group = len(seat_orders(fmt.PLAYERS))
    try:
        openings = openings_option(args.openings, fmt.GAME)
    except OpeningError as error:
        print(f"engine-arena: {error}", file=sys.stderr)
        return 2
    games = args.games or (10_000 if args.sprt else len(openings) * group if openings else 10)
    out = args.out or Path("arena-out") / f"{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    out.mkdir(parents=True, exist_ok=True)
    specs = plan(args.game, bots, games, args.seed, args.time_scale, openings)
    names = [name for name, _ in bots]
    for name, command in bots:
        print(f"{name}: {command}", file=sys.stderr)
    if args.ray is None:
        prepare_shared_daemon(args.game, bots)
    records: list[dict] = []
    started = time.monotonic()
    decision: str | None = None
    llr = 0.0

    def finished(record: dict) -> None:
        nonlocal decision, llr
        records.append(record)
        path = out / f"game-{record['index']:04d}.json"
        path.write_text(json.dumps(record, indent=1) + "\n")
        if args.sprt is not None:
            llr = args.sprt.llr(sprt_units(records, names[0], group))
            decision = args.sprt.decision(llr)
        if not args.quiet:
            results = tally(records, names)
            scores = "  ".join(f"{name} {100 * result.score:.0f}%" for name, result in results.items())
            test = ""
            if args.sprt is not None:
                lower, upper = args.sprt.bounds
                test = f"  LLR {llr:+.2f} [{lower:+.2f}, {upper:+.2f}]"
            print(f"\r{len(records)}/{len(specs)} games  {time.monotonic() - started:.0f} s  {scores}{test}   ",
                  end="", file=sys.stderr, flush=True)

    with Runs(run_game, specs, args.jobs, args.ray) as runs:
        for record in runs:
            finished(record)
            if decision is not None:
                break
    if not args.quiet:
        print(file=sys.stderr)
    records.sort(key=lambda record: record["index"])
    lines = [f"{args.game}: {len(records)} games, time scale {args.time_scale}, records in {out}"]
    lines += table(tally(records, names), fmt.PLAYERS)
    if args.sprt is not None:
        lines.append(args.sprt.report(llr, names[0]))
    print("\n".join(lines))
    (out / "results.txt").write_text("\n".join(lines) + "\n")
    return 0


def replay(argv: list[str]) -> int:
    from adapters.view.replay import replay_page

    parser = argparse.ArgumentParser(prog="engine-arena replay",
                                     description="A self-contained HTML page that replays a game record.")
    parser.add_argument("record", type=Path)
    parser.add_argument("-o", "--output", type=Path, default=None,
                        help="the page to write (default: the record's name with .html)")
    parser.add_argument("--analysis", type=Path, default=None,
                        help="an engine-analyse report of the game (default: <record>-analysis.json if there)")
    args = parser.parse_args(argv)
    record = json.loads(args.record.read_text())
    output = args.output or args.record.with_suffix(".html")
    analysis_path = args.analysis or args.record.with_name(args.record.stem + "-analysis.json")
    analysis = json.loads(analysis_path.read_text()) if analysis_path.exists() else None
    try:
        page = replay_page(record, analysis)
    except ValueError as error:
        print(f"engine-arena replay: {error}", file=sys.stderr)
        return 2
    output.write_text(page)
    print(output)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "replay":
        return replay(argv[1:])
    return match(argv)


if __name__ == "__main__":
    sys.exit(main())
