#!/usr/bin/env python3
"""Measure the engine's strength against outside programs, as a CodinGame bot.

    scripts/strength [--games 20] [--only NAME ...] [--no-install] [--private | --cold-daemon]
                     [--seed S] [--out DIR] [--list] [--tally DIR]

Each match is the arena's (`engine-arena`): `engine` (`engine-cg GAME`, on the user's
shared daemon; with --private an engine of its own per game) against one opponent, both fed CodinGame's turn input under CodinGame's time limits, seats swapped
every game. The opponents are public programs wrapped as CodinGame bots by
`scripts/sparring/` (see docs/strength.md), and for Knight Isolation a paranoid searcher
of our own (`scripts/sparring/paranoid.py`) and the example greedy bot:

    othello    grhino          GRhino 0.16 (GTP), -l 3 -m 5 -w 14 -e 12 (under 150 ms)
    othello    grhino-l3       GRhino at its full level 3 (-l 3)
    othello    openspiel-mcts  OpenSpiel's C++ MCTS, random rollouts, 80 ms a move
    clobber    openspiel-mcts  the same for Clobber
    abalone    pyai-abalone    pyai-abalone's AlphaZero-style network, policy only
    isolation  greedy+greedy   engine against two greedy bots: average rank
    isolation  paranoid+greedy engine against the paranoid searcher and greedy: firsts
    loa        greedy          the example greedy bot (no outside program plays LOA)

The outside programs are installed on demand by scripts/sparring/install (Debian's
grhino with apt-get, two venvs from PyPI); with --no-install a missing one is named
and its rows skipped. The engine's compiled kernels are warmed first (`python -m
daemon.warmup --if-cold`), so that no first turn pays for a compilation. As
`engine-arena` does, each match starts the shared daemon where none runs and loads its
game there before its first game; --cold-daemon stops the daemon first, so that the
first match starts it from nothing.

The table: game | opponent | engine W-D-L | score [95% Wilson interval] | faults
(engine's / opponent's timeouts, invalid actions and ended output) | the engine's
fallback turns (moves `engine-cg` played without the engine's answer, as its stderr in
the records says) of all its turns. Knight Isolation
rows give the engine's places (1st-2nd-3rd), and in the score column its average rank
or its share of first places. Game records go to DIR/<game>-<opponent>/ (default
strength-out/TIME).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import attrs  # noqa: E402

from adapters.arena.main import prepare_shared_daemon, resolve_bots, run_game, shortcut  # noqa: E402
from adapters.arena.referee import plan  # noqa: E402
from adapters.arena.stats import BotResult, tally, wilson  # noqa: E402
from protocol import shared  # noqa: E402

SPARRING = ROOT / "scripts" / "sparring"
ENGINE = "engine"
#: A fallback line of engine-cg's stderr.
FALLBACK = re.compile(r"engine-cg: turn \d+: fallback: ")


def venv_python(name: str) -> str:
    """The python of a sparring venv (see scripts/sparring/install for the folder)."""
    base = Path(os.environ.get("SPARRING_VENVS", ROOT.parent / "sparring-venvs"))
    return str(base / name / "bin" / "python")


@attrs.frozen
class Opponent:
    """One row of the table: the game, the opponent's name, its bots' commands (one for a
    two-player game, two for Knight Isolation), and what scripts/sparring/install must
    provide for it."""

    game: str
    name: str
    commands: tuple[str, ...]
    needs: str | None
    #: Knight Isolation: what the score column shows ("rank" or "firsts").
    measure: str = "score"


def opponents() -> list[Opponent]:
    python = shlex.quote(sys.executable)
    grhino = f"{python} {shlex.quote(str(SPARRING / 'grhino.py'))}"
    mcts = f"{shlex.quote(venv_python('openspiel'))} {shlex.quote(str(SPARRING / 'openspiel_mcts.py'))}"
    pyai = f"{shlex.quote(venv_python('abalone'))} {shlex.quote(str(SPARRING / 'pyai_abalone_bot.py'))}"
    paranoid = f"{python} {shlex.quote(str(SPARRING / 'paranoid.py'))}"
    return [
        Opponent("othello", "grhino", (grhino,), "grhino"),
        Opponent("othello", "grhino-l3", (f"{grhino} --flags '-l 3'",), "grhino"),
        Opponent("othello", "openspiel-mcts", (f"{mcts} othello",), "openspiel"),
        Opponent("clobber", "openspiel-mcts", (f"{mcts} clobber",), "openspiel"),
        Opponent("abalone", "pyai-abalone", (pyai,), "abalone"),
        Opponent("isolation", "greedy+greedy", ("greedy", "greedy"), None, "rank"),
        Opponent("isolation", "paranoid+greedy", (paranoid, "greedy"), None, "firsts"),
        Opponent("loa", "greedy", ("greedy",), None),
    ]


def ensure_installed(needs: set[str], install: bool) -> set[str]:
    """Install (or with `install` False, only check) the sparring programs; returns the
    ones still missing. The installer says on stderr what it does or lacks."""
    if not needs:
        return set()
    missing = set()
    for need in sorted(needs):
        command = [str(SPARRING / "install"), need] + ([] if install else ["--check"])
        if subprocess.run(command).returncode != 0:
            missing.add(need)
    return missing


def use_this_checkout() -> None:
    """Every bot process (engine-cg, the example bots, the wrappers) imports the project
    from this checkout, whatever the venv's install points at."""
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))


def warm_engine() -> None:
    print("strength: warming the engine's compiled kernels (python -m daemon.warmup --if-cold)",
          file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "daemon.warmup", "--if-cold"], cwd=ROOT, check=False)


def play_match(opponent: Opponent, games: int, seed: int, out: Path, progress: Callable[[str], None],
               private: bool = False) -> tuple[BotResult, dict[str, BotResult], list[dict]]:
    """The match's games one at a time; the engine's result, everyone's, and the records."""
    texts = [f"{ENGINE}={shortcut(ENGINE, opponent.game)} --private" if private else f"{ENGINE}={ENGINE}"]
    for index, command in enumerate(opponent.commands):
        label = opponent.name.split("+")[index] if "+" in opponent.name else opponent.name
        texts.append(f"{label}={command}")
    bots = resolve_bots(texts, opponent.game, len(texts))
    prepare_shared_daemon(opponent.game, bots)
    names = [name for name, _ in bots]
    specs = plan(opponent.game, bots, games, seed, 1.0)
    records = []
    out.mkdir(parents=True, exist_ok=True)
    for spec in specs:
        record = run_game(spec)
        records.append(record)
        (out / f"game-{record['index']:04d}.json").write_text(json.dumps(record, indent=1) + "\n")
        engine = tally(records, names)[ENGINE]
        progress(f"{opponent.game} vs {opponent.name}: {len(records)}/{games} games,"
                 f" engine {engine.wins}-{engine.draws}-{engine.losses}")
    results = tally(records, names)
    return results[ENGINE], results, records


def fallback_turns(records: list[dict]) -> tuple[int, int]:
    """The engine's fallback turns in `records` (its `engine-cg: turn N: fallback:` lines),
    and all its turns."""
    fallbacks = turns = 0
    for record in records:
        seat = record["seats"].index(ENGINE)
        turns += sum(move["player"] == seat for move in record["moves"])
        fallbacks += sum(bool(FALLBACK.match(line)) for line in record["stderr"][seat])
    return fallbacks, turns


def row(opponent: Opponent, engine: BotResult, results: dict[str, BotResult], records: list[dict]) -> list[str]:
    others = [result for name, result in results.items() if name != ENGINE]
    theirs = sum(sum(result.faults.values()) for result in others)
    faults = f"{sum(engine.faults.values())} / {theirs}"
    if opponent.measure == "score":
        low, high = engine.interval()
        record = f"{engine.wins}-{engine.draws}-{engine.losses}"
        score = f"{100 * engine.score:.1f}% [{100 * low:.1f}-{100 * high:.1f}%]"
    else:
        record = "places " + "-".join(str(count) for count in engine.places)
        if opponent.measure == "rank":
            ranks = [place + 1 for place, count in enumerate(engine.places) for _ in range(count)]
            score = f"avg rank {sum(ranks) / max(len(ranks), 1):.2f}"
        else:
            share = engine.places[0] / max(engine.games, 1)
            low, high = wilson(share, engine.games)
            score = f"firsts {engine.places[0]}/{engine.games} [{100 * low:.1f}-{100 * high:.1f}%]"
    fallbacks, turns = fallback_turns(records)
    return [opponent.game, opponent.name, record, score, faults, f"{fallbacks} of {turns}"]


def print_table(rows: list[list[str]]) -> None:
    header = ["game", "opponent", "engine W-D-L", "score [95% interval]", "faults (engine / opp.)",
              "fallback turns"]
    widths = [max(len(line[column]) for line in [header, *rows]) for column in range(len(header))]
    for line in [header, ["-" * width for width in widths], *rows]:
        print(" | ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())


def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per match (default 20)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="only rows whose game or opponent is NAME, or GAME/OPPONENT (repeatable)")
    parser.add_argument("--no-install", action="store_true",
                        help="install nothing: name the missing programs and skip their rows")
    parser.add_argument("--seed", type=int, default=0, help="the arena's first seed (default 0)")
    parser.add_argument("--out", type=Path, default=None, help="folder of the game records")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--private", action="store_true",
                       help="the engine's bot starts an engine of its own each game (engine-cg --private)")
    where.add_argument("--cold-daemon", action="store_true",
                       help="stop the user's shared daemon first, so that the first match starts it")
    parser.add_argument("--list", action="store_true", help="list the rows and their commands, play nothing")
    parser.add_argument("--tally", type=Path, metavar="DIR",
                        help="play nothing: print the table of the records in DIR (an --out of an earlier run)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    return args


def selected(opponent: Opponent, only: list[str]) -> bool:
    return not only or any(name in (opponent.game, opponent.name, f"{opponent.game}/{opponent.name}")
                           for name in only)


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    rows_wanted = [opponent for opponent in opponents() if selected(opponent, args.only)]
    if not rows_wanted:
        print(f"strength: no row matches {args.only}", file=sys.stderr)
        return 2
    if args.tally is not None:
        return tally_records(rows_wanted, args.tally)
    if args.list:
        for opponent in rows_wanted:
            print(f"{opponent.game:<10} {opponent.name:<16} {' ; '.join(opponent.commands)}")
        return 0
    missing = ensure_installed({opponent.needs for opponent in rows_wanted if opponent.needs},
                               install=not args.no_install)
    for opponent in rows_wanted:
        if opponent.needs in missing:
            print(f"strength: skipping {opponent.game} vs {opponent.name}: {opponent.needs} is missing"
                  f" (scripts/sparring/install {opponent.needs})", file=sys.stderr)
    playable = [opponent for opponent in rows_wanted if opponent.needs not in missing]
    if not playable:
        return 1
    use_this_checkout()
    warm_engine()
    if args.cold_daemon:
        print(f"strength: stopping the shared daemon ({'stopped' if shared.stop() else 'none ran'}): the first game"
              " starts it", file=sys.stderr, flush=True)
    out = args.out or ROOT / "strength-out" / time.strftime("%Y%m%d-%H%M%S")

    def progress(text: str) -> None:
        print(f"\r{text}   ", end="", file=sys.stderr, flush=True)

    rows, failed = [], False
    for opponent in playable:
        try:
            engine, results, records = play_match(opponent, args.games, args.seed,
                                                  out / f"{opponent.game}-{opponent.name}", progress, args.private)
        except Exception as error:  # noqa: BLE001 - one broken match must not lose the others
            print(f"\nstrength: {opponent.game} vs {opponent.name} failed: {type(error).__name__}: {error}",
                  file=sys.stderr)
            rows.append([opponent.game, opponent.name, "failed", f"{type(error).__name__}", "-", "-"])
            failed = True
            continue
        print(file=sys.stderr)
        rows.append(row(opponent, engine, results, records))
    print(f"engine vs outside programs: {args.games} games a match at CodinGame's time limits,"
          f" seats swapped; records in {out}")
    print_table(rows)
    return 1 if missing or failed else 0


def tally_records(opponents_wanted: list[Opponent], folder: Path) -> int:
    """Print the table of the records a run left in `folder` (finished or not)."""
    rows = []
    for opponent in opponents_wanted:
        paths = sorted((folder / f"{opponent.game}-{opponent.name}").glob("game-*.json"))
        records = [json.loads(path.read_text()) for path in paths]
        if not records:
            continue
        names = [ENGINE] + [name for name in records[0]["seats"] if name != ENGINE]
        results = tally(records, list(dict.fromkeys(names)))
        rows.append(row(opponent, results[ENGINE], results, records))
    if not rows:
        print(f"strength: no records in {folder}", file=sys.stderr)
        return 1
    print(f"engine vs outside programs: the records in {folder}")
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
