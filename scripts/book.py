"""Build a game's opening book by deep searches (daemon/book.py reads it).

    scripts/book GAME [--plies 6] [--movetime 1000] [--out FILE]

The book covers every position of the first PLIES plies that a game played by the book
can reach, whichever side the engine plays: at the book side's turn the engine's move
(searched for MOVETIME ms, the table cleared before each search, so that every entry
stands on its own), at the other side's turn every legal reply. Both sides are book
sides in turn, so the tree is built once for each player, from the game's standard start
(a book is of no use to a game whose start is drawn at random).

The file is written atomically to FILE (default: the game's shipped book,
games/<game>/book.jsonl), its header recording how it was built. Progress goes to
stderr with tqdm.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tqdm import tqdm  # noqa: E402

from daemon import cores  # noqa: E402
from daemon.book import BOOK_FORMAT, book_path  # noqa: E402
from daemon.engine import SessionEngine  # noqa: E402
from games import all_games, find_game  # noqa: E402
from games.base import Game, Position  # noqa: E402
from games.files import atomic_file  # noqa: E402
from search.limits import Limits  # noqa: E402


def book_positions(game: Game, start: Position, plies: int, choose) -> dict[str, dict]:
    """Board text to book entry for every book-side position within `plies` of `start`,
    for each player as the book side; `choose(position)` gives a position's entry (its
    `move` in the game's notation, and how it was chosen)."""
    chosen: dict[str, dict] = {}
    for side in range(game.num_players):
        frontier = [start]
        for _ in range(plies):
            following = []
            for position in frontier:
                moves = position.legal_moves()
                if not moves:
                    continue
                if position.to_move == side:
                    board = game.format_board(position)
                    if board not in chosen:
                        chosen[board] = choose(position)
                    following.append(position.play(game.parse_move(position, chosen[board]["move"])))
                else:
                    following.extend(position.play(move) for move in moves)
            # One position per board: transpositions are searched once.
            frontier = list({game.format_board(position): position for position in following}.values())
    return chosen


def build(game: Game, plies: int, movetime: int) -> list[dict]:
    """The book entries of `game` (see the module docstring), sorted by board."""
    engine = SessionEngine(core=cores.default_core())
    engine.set_game(game.name, {})
    asyncio.run(engine.wait_loaded(600))
    progress = tqdm(desc=f"{game.name} book", unit="pos", file=sys.stderr)

    def choose(position: Position) -> dict:
        engine.hash_clear()
        board = game.format_board(position)
        engine.set_position(tuple(board.split()), ())
        final = asyncio.run(engine.analyse(Limits(movetime=movetime)))[-1]
        progress.update()
        return {"board": board, "move": game.format_move(position, final.pv[0]),
                "score": final.score, "depth": final.depth}

    chosen = book_positions(game, game.initial_state({}), plies, choose)
    progress.close()
    return [chosen[board] for board in sorted(chosen)]


def write_book(path: Path, game: Game, entries: list[dict], source: dict) -> None:
    """Write the book atomically (`games.files.atomic_file`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"format": BOOK_FORMAT, "game": game.name, "source": source}) + "\n")
        for entry in entries:
            out.write(json.dumps(entry) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/book", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(all_games()))
    parser.add_argument("--plies", type=int, default=6, help="book depth in plies (default 6)")
    parser.add_argument("--movetime", type=int, default=1000, help="ms per search (default 1000)")
    parser.add_argument("--out", type=Path, help="the book file (default: the game's shipped book)")
    args = parser.parse_args(argv)
    if args.plies < 1 or args.movetime < 1:
        parser.error("--plies and --movetime must be positive")
    game = find_game(args.game)
    started = time.monotonic()
    entries = build(game, args.plies, args.movetime)
    out = args.out or book_path(game)
    source = {"plies": args.plies, "movetime_ms": args.movetime, "positions": len(entries),
              "core": cores.default_core(), "seconds": round(time.monotonic() - started)}
    write_book(out, game, entries, source)
    print(f"{game.name}: {len(entries)} positions in {source['seconds']} s -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
