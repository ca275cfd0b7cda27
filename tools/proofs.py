"""How early the engine proves a game's result, and what proving a fixed set of endgame
positions costs it.

`scripts/proofs GAME selfplay [--games 100] [--movetime 100] [--random-plies 4]`
plays the engine against itself (`daemon.engine.SessionEngine`, one table kept through
each game, as a daemon keeps it between moves), each game from a seeded random opening of
`--random-plies` plies, and prints, per game and in all, the plies before the end at
which its search first reported a proven result at `--movetime` per move, and how many
moves came from a search that went to the solver and was stopped before its proof
(unproved, and no deeper than the solver's heuristic prelude).

`scripts/proofs GAME endgames [--stones 30,28,26] [--positions 8] [--limit 60]` proves
(`SessionEngine.prove`, an empty table each) the positions of seeded random games
played down to each number of pieces on the board, and prints the nodes and times to
the first report of a proven result (win, loss or draw), each proof stopped after
`--limit` seconds if it takes longer.

`scripts/proofs GAME label ARENA_DIR [...] --out FILE [--stones 26-40] [--limit 2]`
proves every position of the recorded games (`engine-arena` records, game-*.json) with
that many pieces, each within `--limit` seconds, and writes those proved as JSON lines
{"board", "result"} (the result for the side to move: 1 win, 0.5 draw, 0 loss), the
exact labels `scripts/tune --solved` fits an evaluation to. Resumable: boards already in
FILE are skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
from pathlib import Path


from daemon.engine import SessionEngine
from games import find_game
from games.base import Game, Position
from search.alphabeta import SOLVER_PRELUDE_DEPTH
from search.base import SearchReport
from search.limits import Limits
from tools.searching import loaded_engine, percentiles


def pieces(game: Game, position: Position) -> int:
    """The pieces on the position's board: the letters of its board text's first field."""
    return sum(1 for char in game.format_board(position).split()[0] if char.isalpha())


def random_position(game: Game, seed: int, count: int) -> Position | None:
    """The position of seeded random game `seed` once at most `count` pieces are left
    (None if it ended before)."""
    rng = random.Random(seed)
    position = game.initial_state({})
    while pieces(game, position) > count:
        if position.outcome() is not None:
            return None
        position = position.play(rng.choice(position.legal_moves()))
    return position if position.outcome() is None else None


def to_position(engine: SessionEngine, game: Game, position: Position) -> None:
    engine.set_position(tuple(game.format_board(position).split()), ())


async def selfplay(game: Game, games: int, movetime: int, random_plies: int) -> None:
    engine = await loaded_engine(game.name)
    before_end: list[int] = []
    shallows = 0
    for seed in range(games):
        rng = random.Random(seed)
        engine.new_game()
        position = game.initial_state({})
        for _ in range(random_plies):
            position = position.play(rng.choice(position.legal_moves()))
        first_proof, ply, shallow = None, 0, 0
        while position.outcome() is None:
            to_position(engine, game, position)
            final = (await engine.analyse(Limits(movetime=movetime)))[-1]
            if first_proof is None and final.mate_in is not None:
                first_proof = ply
            shallow += final.mate_in is None and final.depth <= SOLVER_PRELUDE_DEPTH
            position = position.play(final.pv[0])
            ply += 1
        before_end.append(ply - first_proof if first_proof is not None else 0)
        shallows += shallow
        print(f"game {seed}: {ply} plies after the opening, result proved {before_end[-1]} plies "
              f"before the end, {pieces(game, position)} pieces left; {shallow} moves of a search "
              f"no deeper than the solver's prelude, unproved", flush=True)
    print(f"{games} games at {movetime} ms a move: the result proved "
          f"{statistics.mean(before_end):.1f} plies before the end on average "
          f"(median {statistics.median(before_end)}, least {min(before_end)}, most {max(before_end)}); "
          f"{shallows} moves unproved by a solver that ran out of time")


async def first_proof(engine: SessionEngine, game: Game, position: Position, limit: float) -> SearchReport | None:
    """The first report of a proven result (win, loss or draw) of proving `position` from
    an empty table within `limit` seconds, or None if there was none in time."""
    engine.hash_clear()
    to_position(engine, game, position)
    reports = await engine.prove(Limits(movetime=int(limit * 1000)))
    return next((report for report in reports if report.mate_in is not None or report.margin is not None), None)


async def endgames(game: Game, counts: list[int], positions: int, limit: float) -> None:
    engine = await loaded_engine(game.name)
    for count in counts:
        nodes, seconds, unproved = [], [], 0
        seed = 0
        while len(nodes) + unproved < positions:
            position = random_position(game, seed, count)
            seed += 1
            if position is None:
                continue
            proof = await first_proof(engine, game, position, limit)
            if proof is None:
                unproved += 1
                continue
            nodes.append(proof.nodes)
            seconds.append(proof.elapsed_ms / 1000)
        print(f"{count} pieces: {len(nodes)} proved, {unproved} not within {limit:g} s; "
              f"{sum(nodes):,} nodes in all, times {percentiles(seconds)}", flush=True)


def recorded_positions(game: Game, runs: list[Path], low: int, high: int) -> list[Position]:
    """The positions of the games recorded in `runs` with `low` to `high` pieces, each
    once, in the order met."""
    seen: set[str] = set()
    found: list[Position] = []
    for run in runs:
        for path in sorted(run.glob("**/game-*.json")):
            record = json.loads(path.read_text())
            if record["game"] != game.name:
                raise SystemExit(f"proofs: {path} is a {record['game']} game, not {game.name}")
            position = game.parse_board(record["start"].split())
            for move in record["moves"]:
                board = game.format_board(position)
                if low <= pieces(game, position) <= high and board not in seen:
                    seen.add(board)
                    found.append(position)
                position = position.play(game.parse_move(position, move["move"]))
    return found


async def label(game: Game, runs: list[Path], low: int, high: int, limit: float, out: Path) -> None:
    done = {json.loads(line)["board"] for line in out.read_text().splitlines()} if out.exists() else set()
    positions = [position for position in recorded_positions(game, runs, low, high)
                 if game.format_board(position) not in done]
    print(f"{len(positions)} positions to prove ({len(done)} already in {out})", flush=True)
    engine = await loaded_engine(game.name)
    proved = unproved = 0
    with out.open("a") as sink:
        for position in positions:
            proof = await first_proof(engine, game, position, limit)
            if proof is None:
                unproved += 1
                continue
            score = proof.margin if proof.margin is not None else proof.mate_in
            result = 1.0 if score > 0 else 0.0 if score < 0 else 0.5
            sink.write(json.dumps({"board": game.format_board(position), "result": result}) + "\n")
            sink.flush()
            proved += 1
            if (proved + unproved) % 200 == 0:
                print(f"{proved} proved, {unproved} not within {limit:g} s", flush=True)
    print(f"{proved} proved, {unproved} not within {limit:g} s; labels in {out}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("selfplay", help="plies before the end at which the result is proved")
    play.add_argument("--games", type=int, default=100)
    play.add_argument("--movetime", type=int, default=100, help="ms a move")
    play.add_argument("--random-plies", type=int, default=4, help="random plies opening each game")
    ends = commands.add_parser("endgames", help="nodes to prove fixed endgame positions")
    ends.add_argument("--stones", default="30,28,26", help="comma-separated piece counts")
    ends.add_argument("--positions", type=int, default=8, help="positions per count")
    ends.add_argument("--limit", type=float, default=60.0, help="seconds a proof may take")
    labels = commands.add_parser("label", help="exact labels of recorded positions")
    labels.add_argument("runs", nargs="+", type=Path, metavar="ARENA_DIR")
    labels.add_argument("--out", type=Path, required=True, help="the JSON lines of labels")
    labels.add_argument("--stones", default="26-40", help="the piece counts, LOW-HIGH")
    labels.add_argument("--limit", type=float, default=2.0, help="seconds a proof may take")
    args = parser.parse_args()
    game = find_game(args.game)
    if args.command == "selfplay":
        asyncio.run(selfplay(game, args.games, args.movetime, args.random_plies))
    elif args.command == "label":
        low, _, high = args.stones.partition("-")
        asyncio.run(label(game, args.runs, int(low), int(high or low), args.limit, args.out))
    else:
        asyncio.run(endgames(game, [int(text) for text in args.stones.split(",")], args.positions, args.limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
