"""How well the engine chooses its move in positions of expert games: each legal move
valued by a deep reference, the engine's choice at a CodinGame turn's time scored by its
regret (the reference's best value less that of the move chosen, in the game's units).

    scripts/regret reference GAME --games FOLDER --out FILE [--empties 26-44]
                             [--positions 60] [--depth 14] [--exact] [--seed 1]
    scripts/regret measure GAME FILE [--movetime 110 ...] [--hash 16] [--option NAME=VALUE ...]

`reference` draws `--positions` positions (seeded) from the expert games in FOLDER
(`Game.training.expert_lines`, the game's files of expert games, read in place), one a game, their empty
squares spread evenly over `--empties`, and values every legal move of each:
- by default with one MultiPV search over every root move to `--depth`, at the engine's
  defaults (its evaluation and selectivity) and a fresh table: a move's value is the
  mean of its scores of the last two iterations (a fixed depth's score swings with its
  parity); that of the two iterations before them is kept too (`previous`), from which
  `measure` gives the reference's own noise;
- with `--exact`, by proving each move's position exactly (the final margin).
It appends one JSON line a position to FILE: {"board", "empties", "depth", "values"
{move: value}, "previous" {move: value} (deep only), "exact"}, and skips the boards
already there, so it resumes where it was stopped.

`measure` searches each position of FILE with a choice of moves once, with an empty table of `--hash` MiB, at
each `--movetime` (ms, `go movetime`, no book: as deep in the game as these positions
the book is out of play), and prints per bucket of empty squares and in all the share
of positions where the move chosen is a best one, the mean regret, and, for deep
references, the same of the reference's own previous iterations (how far the
reference itself is from settled).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
from pathlib import Path

import attrs

from daemon.engine import SessionEngine
from games import find_game
from games.base import Game, Position
from search.base import SearchReport
from search.limits import Limits
from tools.searching import analyse_board, tool_engine
from tools.solve import empties

#: The table of the reference's searches, in MiB.
REFERENCE_HASH_MIB = 64
#: The width of a bucket of empty squares in `measure`'s table.
BUCKET = 5


@attrs.frozen
class Reference:
    """One position of the reference: its board text, its empty squares, each legal
    move's value (game units, the side to move's view) and, for a deep reference, the
    values of the two iterations before (`previous`)."""

    board: str
    empties: int
    depth: int
    values: dict[str, float]
    previous: dict[str, float] | None
    exact: bool

    @property
    def best(self) -> float:
        return max(self.values.values())

    def regret(self, move: str) -> float:
        """The value lost by playing `move` rather than a best move."""
        return self.best - self.values[move]

    def previous_regret(self) -> float | None:
        """The regret of the move that the previous iterations' values choose."""
        if not self.previous:
            return None
        return self.regret(max(self.previous, key=self.previous.__getitem__))

    def to_json(self) -> str:
        return json.dumps(attrs.asdict(self))


def read_references(path: Path) -> list[Reference]:
    """The positions of a reference file; raises ValueError naming the line of one that
    is not a reference."""
    found = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            found.append(Reference(**json.loads(line)))
        except (ValueError, TypeError) as error:
            raise ValueError(f"{path}:{number}: not a reference position: {error}") from None
    return found


def expert_positions(game: Game, folder: Path, low: int, high: int, count: int, seed: int) -> list[Position]:
    """`count` positions of distinct expert games, their empty squares cycling through
    low..high, the games drawn in a seeded order, each with a choice of moves (two legal
    moves or more); a player without a move passes."""
    lines = game.training.expert_lines(folder, 60)
    order = list(range(len(lines)))
    random.Random(seed).shuffle(order)
    wanted = [low + index % (high - low + 1) for index in range(count)]
    found: list[Position] = []
    for index in order:
        if len(found) == count:
            break
        target = wanted[len(found)]
        position = game.initial_state({})
        for text in lines[index]:
            if empties(game, position) == target:
                break
            moves = position.legal_moves()
            if moves and all(game.format_move(position, move) == "pass" for move in moves):
                position = position.play(moves[0])
            try:
                position = position.play(game.parse_move(position, text))
            except ValueError:
                break
        if empties(game, position) == target and len(position.legal_moves()) > 1:
            found.append(position)
    return found


def deep_values(game: Game, board: str, depth: int) -> tuple[dict[str, float], dict[str, float]]:
    """Every legal move's value (the mean of its last two iterations' scores) and that of
    the two iterations before, from one MultiPV search over every move to `depth`."""
    engine = tool_engine(game.name, (("Hash", REFERENCE_HASH_MIB),))
    position = game.parse_board(board.split())
    count = len(position.legal_moves())
    reports = [report for report in analyse_board(engine, board, Limits(depth=depth), multipv=count)
               if not report.final]
    by_depth: dict[int, dict[str, float]] = {}
    for report in reports:
        lines = [(report.score, report.pv)] + list(report.others)
        scores = {game.format_move(position, pv[0]): score / 100 for score, pv in lines if pv}
        if len(scores) == count:
            by_depth[report.depth] = scores
    depths = sorted(by_depth)
    if len(depths) < 4:
        raise ValueError(f"the search of {board} completed fewer than four iterations over every move")

    def mean(first: int, second: int) -> dict[str, float]:
        return {move: round((by_depth[first][move] + by_depth[second][move]) / 2, 3) for move in by_depth[first]}

    return mean(depths[-1], depths[-2]), mean(depths[-3], depths[-4])


def prove(engine: SessionEngine) -> SearchReport:
    """The final report of `engine`'s exact proof of its position, from outside an event
    loop."""
    return asyncio.run(engine.prove(Limits()))[-1]


def exact_values(game: Game, board: str) -> dict[str, float]:
    """Every legal move's exact value: the final margin of its position, proved."""
    engine = tool_engine(game.name, (("Hash", REFERENCE_HASH_MIB),))
    position = game.parse_board(board.split())
    values = {}
    for move in position.legal_moves():
        child = position.play(move)
        engine.hash_clear()
        if child.outcome() is not None:
            margin = child.outcome().margin[child.to_move]
        else:
            engine.set_position(tuple(game.format_board(child).split()), ())
            margin = prove(engine).margin
            if margin is None:
                raise ValueError(f"{board}: {game.format_move(position, move)} was not proved")
        sign = 1 if child.to_move == position.to_move else -1
        values[game.format_move(position, move)] = float(sign * margin)
    return values


def reference(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    low, high = (int(part) for part in args.empties.split("-"))
    done = {item.board for item in read_references(args.out)} if args.out.exists() else set()
    positions = expert_positions(game, args.games, low, high, args.positions, args.seed)
    with args.out.open("a") as out:
        for number, position in enumerate(positions, 1):
            board = game.format_board(position)
            if board in done:
                continue
            if args.exact:
                values, previous = exact_values(game, board), None
            else:
                values, previous = deep_values(game, board, args.depth)
            item = Reference(board, empties(game, position), 0 if args.exact else args.depth, values, previous,
                             args.exact)
            out.write(item.to_json() + "\n")
            out.flush()
            print(f"{number}/{len(positions)}: {item.empties} empty, {len(values)} moves, best {item.best:+.2f}",
                  file=sys.stderr)
    return 0


def summary_line(name: str, regrets: list[float]) -> str:
    best = sum(1 for regret in regrets if regret <= 1e-9)
    return (f"{name:>18} {len(regrets):>9} {best / len(regrets):>9.0%} {statistics.mean(regrets):>11.2f}"
            f" {max(regrets):>10.2f}")


def measure(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    items = [item for item in read_references(args.file) if len(item.values) > 1]
    if not items:
        raise SystemExit(f"{args.file} holds no position")
    options = [("Hash", args.hash), ("OwnBook", False)]
    for option in args.option:
        name, _, value = option.partition("=")
        options.append((name, int(value) if value.lstrip("-").isdigit() else value))
    engine = tool_engine(game.name, tuple(options))
    print(f"{'':>18} {'positions':>9} {'best':>9} {'mean regret':>11} {'max regret':>10}")
    for movetime in args.movetime:
        regrets: dict[int, list[float]] = {}
        for item in items:
            final = analyse_board(engine, item.board, Limits(movetime=movetime))[-1]
            position = game.parse_board(item.board.split())
            move = game.format_move(position, final.pv[0])
            regrets.setdefault(item.empties // BUCKET * BUCKET, []).append(item.regret(move))
        for bucket in sorted(regrets):
            print(summary_line(f"{movetime} ms, {bucket}-{bucket + BUCKET - 1}", regrets[bucket]))
        print(summary_line(f"{movetime} ms, all", [value for bucket in regrets.values() for value in bucket]))
    previous = [item.previous_regret() for item in items if item.previous]
    if previous:
        print(summary_line("reference, d-2", previous))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/regret", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("reference", help="value every move of expert positions")
    make.add_argument("game")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--games", type=Path, required=True, help="the folder of the game's expert games")
    make.add_argument("--empties", default="26-44")
    make.add_argument("--positions", type=int, default=60)
    make.add_argument("--depth", type=int, default=14)
    make.add_argument("--exact", action="store_true", help="prove every move's value instead")
    make.add_argument("--seed", type=int, default=1)
    make.set_defaults(run=reference)
    score = commands.add_parser("measure", help="the engine's regret at a turn's time")
    score.add_argument("game")
    score.add_argument("file", type=Path)
    score.add_argument("--movetime", type=int, nargs="+", default=[110])
    score.add_argument("--hash", type=int, default=16, help="MiB (default 16)")
    score.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                       help="an engine option of the searches measured (repeat for several)")
    score.set_defaults(run=measure)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
