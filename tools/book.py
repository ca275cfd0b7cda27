"""Build a game's opening book by deep searches and drop-out expansion (daemon/book.py
reads it).

    scripts/book GAME [--games FOLDER] [--min-games 200] [--plies 24]
                      [--expand 500] [--depth 12] [--lines 6] [--ply-cost 100]
                      [--workers 2] [--minutes M] [--out FILE]

The book is a tree of positions from the game's standard start. Each position of it is
searched once, to `--depth`, its best `--lines` root moves each a line of its own
(MultiPV; the others are left out of the book: no line the book plays, and none the
expansion follows, starts with a move that much worse), each move scored by the mean of its last two iterations: in a game where each move adds a stone,
the score of a fixed-depth search swings with the parity of the depth, and the mean
cancels most of it.
A move's book value is then the negamax of the tree: minus the value of the position it
leads to where the book holds that position, else its own search score.

The tree starts from the expert games in `--games FOLDER` (for a game with such games:
`games/<game>/training.py`'s `expert_lines`): every position that at least `--min-games`
of them reach in their first `--plies` moves. It grows by drop-out expansion (Lincke,
2000): a position's cost is the sum along the cheapest path from the start of each
move's drop (how far its value is below the best move's) plus `--ply-cost` a ply, and
the book adds, `--expand` times, the position behind the cheapest move it does not
hold yet (in rounds of 8 positions a worker, the cheapest of each round searched
together). Lines that either side could well choose are followed deep; poor moves soon
leave the book. Both sides' moves count alike: the book plays either side.

The file is written atomically to FILE (default: the game's shipped book,
games/<game>/book.jsonl) after every round of searches, so that a build can be stopped
and resumed: positions already in FILE, searched to the same depth, are not searched
again. Each entry keeps every legal move with its book value (`score`) and its own search
score (`search`), best first. `--minutes` stops the growth at a deadline; `--workers`
searches that many positions at a time, one process each. Progress goes to stderr with
tqdm.

`--reach EVERY` (with `--games`) builds nothing and says how far every EVERY-th expert
game stays in the book: the ply at which it first reaches a position the book lacks.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import heapq
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Iterable, Sequence

from tqdm import tqdm

from daemon import cores
from daemon.book import BOOK_FORMAT, Book, book_path
from games import all_games, find_game
from games.base import Game, Position
from games.files import atomic_file
from search.limits import Limits
from tools.pattern_data import training_module
from tools.searching import analyse_board, tool_engine


#: Positions a round searches, a worker: the book is written after each round, and the
#: expansion's costs worked out again before it.
ROUND_PER_WORKER = 8


class Tree:
    """The book's positions by board text, each with its search: move text to score for
    the side to move. Values and costs are those of the module docstring."""

    def __init__(self, game: Game, ply_cost: int):
        self.game = game
        self.ply_cost = ply_cost
        self.start = game.initial_state({})
        self.searched: dict[str, dict[str, int]] = {}
        self._children: dict[str, dict[str, str]] = {}
        self._goes_on: dict[str, bool] = {}

    def key(self, position: Position) -> str:
        """The board text the book keeps `position` under: the least of its images'
        (`Game.board_images`), so that equivalent positions are searched once."""
        return min(self.game.format_board(image) for image, _ in self.game.board_images(position))

    def add(self, board: str, scores: dict[str, int]) -> None:
        """Keep the search of the position `board` (a key)."""
        position = self.game.parse_board(board.split())
        self.searched[board] = scores
        self._children[board] = {self.game.format_move(position, move): self.key(position.play(move))
                                 for move in position.legal_moves()}

    def move_values(self) -> dict[str, dict[str, int]]:
        """Every book position's moves with their book values (negamax through the tree)."""
        values: dict[str, int] = {}
        moves: dict[str, dict[str, int]] = {}

        def value(board: str) -> int:
            if board not in values:
                values[board] = 0  # a repetition, were a game to allow one, is a draw
                scored = {move: -value(child) if child in self.searched else self.searched[board][move]
                          for move, child in self._children[board].items() if move in self.searched[board]}
                moves[board] = scored
                values[board] = max(scored.values()) if scored else 0
            return values[board]

        sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
        for board in self.searched:
            value(board)
        return moves

    def cheapest(self, count: int) -> list[str]:
        """Up to `count` board texts, not in the book, of the positions behind the
        cheapest moves of its positions (the positions reached from the start)."""
        moves = self.move_values()
        root = self.key(self.start)
        if root not in self.searched:
            return [root]
        cost, frontier, seen = {root: 0}, [(0, root)], set()
        candidates: dict[str, int] = {}
        while frontier:
            spent, board = heapq.heappop(frontier)
            if board in seen:
                continue
            seen.add(board)
            best = max(moves[board].values(), default=0)
            for move, score in moves[board].items():
                child = self._children[board][move]
                step = spent + best - score + self.ply_cost
                if child in self.searched:
                    if step < cost.get(child, step + 1):
                        cost[child] = step
                        heapq.heappush(frontier, (step, child))
                elif step < candidates.get(child, step + 1) and self._open(child):
                    candidates[child] = step
        return sorted(candidates, key=candidates.__getitem__)[:count]

    def _open(self, board: str) -> bool:
        """Whether the game goes on in the position `board` (a key)."""
        if board not in self._goes_on:
            self._goes_on[board] = bool(self.game.parse_board(board.split()).legal_moves())
        return self._goes_on[board]

    def entries(self, depth: int) -> list[dict]:
        """The book's entries, sorted by board, each move best first."""
        moves = self.move_values()
        return [{"board": board, "depth": depth,
                 "moves": [{"move": move, "score": score, "search": self.searched[board][move]}
                           for move, score in sorted(moves[board].items(), key=lambda item: -item[1])]}
                for board in sorted(self.searched)]


def search_position(task: tuple[str, str, int, int]) -> tuple[str, dict[str, int]]:
    """(board, move text to score) of a search of the position `board` of game `name` to
    `depth`, its best `lines` root moves a line each (see the module docstring); in a
    worker process."""
    name, board, depth, lines = task
    engine = tool_engine(name)
    reports = analyse_board(engine, board, Limits(depth=depth), lines)
    game, position = engine.require_position()
    last: dict[int, dict[str, int]] = {}
    for report in reports:
        if not report.final and report.pv:
            found = [(report.score, report.pv), *report.others]
            last[report.depth] = {game.format_move(position, pv[0]): score for score, pv in found}
    depths = sorted(last)[-2:]
    return board, {move: sum(last[d][move] for d in depths) // len(depths)
                   for move in last[depths[-1]] if all(move in last[d] for d in depths)}


def seed_boards(tree: Tree, folder: Path, plies: int, min_games: int) -> list[str]:
    """The keys of the positions that at least `min_games` of the expert games in
    `folder` reach in their first `plies` moves, nearest the start first."""
    game = tree.game
    training = training_module(game.name)
    prefixes = collections.Counter()
    for line in training.expert_lines(folder, plies):
        for length in range(len(line) + 1):
            prefixes[line[:length]] += 1
    boards: dict[str, int] = {}
    for line in sorted((line for line, count in prefixes.items() if count >= min_games), key=len):
        position = game.initial_state({})
        try:
            for move in line:
                if not position.legal_moves():
                    break
                position = position.play(game.parse_move(position, move))
        except ValueError:
            continue
        if position.legal_moves():
            boards.setdefault(tree.key(position), len(line))
    return list(boards)


def read_tree(tree: Tree, path: Path, depth: int) -> None:
    """Add to `tree` the positions of the book in `path` searched to `depth` (a resumed
    build)."""
    if not path.is_file():
        return
    with path.open(encoding="utf-8") as handle:
        header = json.loads(handle.readline())
        if header.get("format") != BOOK_FORMAT or header.get("game") != tree.game.name:
            return
        for line in handle:
            entry = json.loads(line)
            if entry.get("depth") == depth and all("search" in move for move in entry["moves"]):
                tree.add(entry["board"], {move["move"]: move["search"] for move in entry["moves"]})


def write_book(path: Path, game: Game, entries: list[dict], source: dict) -> None:
    """Write the book atomically (`games.files.atomic_file`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"format": BOOK_FORMAT, "game": game.name, "source": source}) + "\n")
        for entry in entries:
            out.write(json.dumps(entry) + "\n")


def build(args: argparse.Namespace, game: Game, out: Path) -> Tree:
    """Search the seeds, then grow the tree (see the module docstring), writing the book
    after every round."""
    tree = Tree(game, args.ply_cost)
    read_tree(tree, out, args.depth)
    resumed = len(tree.searched)
    seeds = [tree.key(tree.start)]
    if args.games:
        seeds += seed_boards(tree, args.games, args.plies, args.min_games)
    seeds = [board for board in dict.fromkeys(seeds) if board not in tree.searched]
    deadline = time.monotonic() + 60 * args.minutes if args.minutes else None
    started = time.monotonic()
    progress = tqdm(total=len(seeds) + args.expand, desc=f"{game.name} book", unit="pos", file=sys.stderr)

    def source() -> dict:
        return {"games": str(args.games) if args.games else None, "min_games": args.min_games,
                "plies": args.plies, "depth": args.depth, "lines": args.lines, "ply_cost": args.ply_cost,
                "positions": len(tree.searched), "core": cores.default_core(),
                "seconds": round(time.monotonic() - started), "resumed": resumed}

    with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
        def search(boards: list[str]) -> None:
            for board, scores in pool.map(search_position, [(game.name, board, args.depth, args.lines) for board in boards]):
                tree.add(board, scores)
                progress.update()
            write_book(out, game, tree.entries(args.depth), source())

        for first in range(0, len(seeds), ROUND_PER_WORKER * args.workers):
            search(seeds[first:first + ROUND_PER_WORKER * args.workers])
        expanded = 0
        while expanded < args.expand and (deadline is None or time.monotonic() < deadline):
            boards = tree.cheapest(min(ROUND_PER_WORKER * args.workers, args.expand - expanded))
            if not boards:
                break
            search(boards)
            expanded += len(boards)
    write_book(out, game, tree.entries(args.depth), source())
    progress.close()
    return tree


def reach(game: Game, book: Book, lines: Iterable[Sequence[str]]) -> list[int]:
    """For each line of moves from the start, the ply at which it leaves `book`: how many
    of its moves are played from positions the book holds (by an image), in a row."""
    reached = []
    for line in lines:
        position, ply = game.initial_state({}), 0
        for move in line:
            if not book.moves(position):
                break
            try:
                position = position.play(game.parse_move(position, move))
            except ValueError:  # a line that passes without saying so
                break
            ply += 1
        reached.append(ply)
    return reached


def report_reach(game: Game, path: Path, folder: Path, every: int) -> str:
    """How far every `every`-th of the expert games in `folder` stays in the book at
    `path`, in a line."""
    book = Book.read(game, path)
    lines = training_module(game.name).expert_lines(folder, 60)[::every]
    plies = reach(game, book, lines)
    low, median, high = statistics.quantiles(plies, n=4)
    return (f"{game.name}: {len(book)} positions; {len(lines)} expert games (every {every}th) leave the book"
            f" at ply {median:g} (median; quartiles {low:g}-{high:g}, mean {statistics.mean(plies):.1f});"
            f" {sum(ply > 20 for ply in plies) / len(plies):.0%} stay in it past ply 20")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/book", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(all_games()))
    parser.add_argument("--games", type=Path, help="a folder of the game's expert games to start the book from")
    parser.add_argument("--min-games", type=int, default=200, help="expert games a position needs (default 200)")
    parser.add_argument("--plies", type=int, default=24, help="how far into the expert games (default 24)")
    parser.add_argument("--expand", type=int, default=500, help="positions drop-out expansion adds (default 500)")
    parser.add_argument("--depth", type=int, default=12, help="depth of each position's search (default 12)")
    parser.add_argument("--lines", type=int, default=6, help="the best moves each position lists (default 6)")
    parser.add_argument("--ply-cost", type=int, default=100, help="expansion cost of a ply, centi-units (default 100)")
    parser.add_argument("--workers", type=int, default=2, help="positions searched at a time (default 2)")
    parser.add_argument("--minutes", type=float, help="stop expanding after this long")
    parser.add_argument("--out", type=Path, help="the book file (default: the game's shipped book)")
    parser.add_argument("--reach", type=int, metavar="EVERY",
                        help="build nothing: say how far every EVERY-th of the expert games stays in the book")
    args = parser.parse_args(argv)
    if min(args.min_games, args.plies, args.depth, args.lines, args.workers) < 1 or args.expand < 0 or args.ply_cost < 0:
        parser.error("--min-games, --plies, --depth, --lines and --workers must be positive, --expand and --ply-cost not negative")
    game = find_game(args.game)
    out = args.out or book_path(game)
    if args.reach is not None:
        if not args.games or args.reach < 1:
            parser.error("--reach needs --games and a positive EVERY")
        print(report_reach(game, out, args.games, args.reach))
        return 0
    started = time.monotonic()
    tree = build(args, game, out)
    print(f"{game.name}: {len(tree.searched)} positions in {round(time.monotonic() - started)} s -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
