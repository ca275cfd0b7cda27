"""The `engine-arena` command: matches between CodinGame bots, and replay pages.

    engine-arena GAME --bot CMD --bot CMD [--bot CMD] --games N [--time-scale X]
                 [--jobs J] [--seed S] [--out DIR]
    engine-arena replay RECORD.json [-o PAGE.html]

A bot is a command line (split as a shell would, run without a shell) or a shortcut:
`random` and `greedy` (the example bots), `paranoid` (the example Knight Isolation
searcher), `engine` (`engine-cg GAME` with its own engine). `NAME=CMD` names a bot in the table. Seats missing from the list are filled
with `greedy`, then `random`.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

from adapters.codingame import game_name, turn_format
from adapters.codingame.arena.referee import GameSpec, plan, play_game
from adapters.codingame.arena.stats import table, tally

_NAMED = re.compile(r"^([A-Za-z][\w.+-]*)=(\S.*)$")


def shortcut(name: str, game: str) -> str | None:
    """The command of a shortcut bot name, or None."""
    python = shlex.quote(sys.executable)
    if name in ("random", "greedy", "paranoid"):
        return f"{python} -m adapters.codingame.bots {name} {game}"
    if name == "engine":
        script = Path(sys.executable).parent / "engine-cg"
        if script.exists():
            return f"{shlex.quote(str(script))} {game}"
        return f"{python} -m adapters.codingame.adapter {game}"
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
                        help="a bot: a command, random, greedy, paranoid or engine; NAME=CMD names it "
                             "(repeat: one per player)")
    parser.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    parser.add_argument("--time-scale", type=float, default=1.0, metavar="X",
                        help="multiply CodinGame's time limits by X (default 1)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                        help="games played at once (default: the number of cores)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="first seed: a seeded start position, the bots' ARENA_SEED, and "
                             "the referee's random moves (default 0)")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="directory for the game records (default arena-out/GAME-TIME)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1 or args.time_scale <= 0:
        parser.error("--games and --jobs must be at least 1, --time-scale positive")
    return args


def match(argv: list[str]) -> int:
    args = parse_match_arguments(argv)
    fmt = turn_format(args.game)
    if len(args.bot) > fmt.PLAYERS:
        print(f"engine-arena: {args.game} has {fmt.PLAYERS} players, got {len(args.bot)} bots",
              file=sys.stderr)
        return 2
    bots = resolve_bots(args.bot, args.game, fmt.PLAYERS)
    out = args.out or Path("arena-out") / f"{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    out.mkdir(parents=True, exist_ok=True)
    specs = plan(args.game, bots, args.games, args.seed, args.time_scale)
    names = [name for name, _ in bots]
    for name, command in bots:
        print(f"{name}: {command}", file=sys.stderr)
    records: list[dict] = []
    started = time.monotonic()

    def finished(record: dict) -> None:
        records.append(record)
        path = out / f"game-{record['index']:04d}.json"
        path.write_text(json.dumps(record, indent=1) + "\n")
        if not args.quiet:
            results = tally(records, names)
            scores = "  ".join(f"{name} {100 * result.score:.0f}%" for name, result in results.items())
            print(f"\r{len(records)}/{len(specs)} games  {time.monotonic() - started:.0f} s  {scores}   ",
                  end="", file=sys.stderr, flush=True)

    if args.jobs == 1:
        for spec in specs:
            finished(run_game(spec))
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for future in concurrent.futures.as_completed([pool.submit(run_game, spec) for spec in specs]):
                finished(future.result())
    if not args.quiet:
        print(file=sys.stderr)
    records.sort(key=lambda record: record["index"])
    lines = [f"{args.game}: {len(records)} games, time scale {args.time_scale}, records in {out}"]
    lines += table(tally(records, names), fmt.PLAYERS)
    print("\n".join(lines))
    (out / "results.txt").write_text("\n".join(lines) + "\n")
    return 0


def replay(argv: list[str]) -> int:
    from adapters.codingame.arena.replay import replay_page

    parser = argparse.ArgumentParser(prog="engine-arena replay",
                                     description="A self-contained HTML page that replays a game record.")
    parser.add_argument("record", type=Path)
    parser.add_argument("-o", "--output", type=Path, default=None,
                        help="the page to write (default: the record's name with .html)")
    args = parser.parse_args(argv)
    record = json.loads(args.record.read_text())
    output = args.output or args.record.with_suffix(".html")
    try:
        page = replay_page(record)
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
