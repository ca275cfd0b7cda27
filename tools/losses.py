"""Where the engine's games are lost: each of its moves in arena records valued against
the best move of its position, exactly where the solver finishes and by deep searches
before, and the losses reported by phase.

    scripts/losses GAME RECORDS... [--player engine] [--exact 18] [--depth 14]
                   [--late-from 32] [--threshold 2] [--out FILE]

RECORDS are `engine-arena` records (game-*.json) or folders of them, of a two-player game
whose board text writes empty cells as `.` (a game that fills or empties its board). The
player is the seat whose name starts with `--player`. Each of its moves with a choice is
valued as `scripts/regret` values a reference position (`tools.regret`): every legal
move proved exactly where at most `--exact` cells are empty, else by one MultiPV search
over every move to `--depth` (the mean of its last two iterations). Its loss is the best
move's value less that of the move played, in the game's units (its disc or stone margin).

Each move is put in a phase: `book` where the engine's opening book holds the position
(the bot plays the book there), else the game's phase (`Game.phase`), its middle game
split at `--late-from` empty cells into an early and a late part. Printed: per phase, the
moves, those that lost at least `--threshold` (any loss, where valued exactly), the
value lost in all and per game; where each game's first such loss fell, with its mean
size; and what the book's moves lost by the book's own values (its choice among
near-best moves, `BookVariety`). With `--out`, one JSON line a game: its record, the
player's result and every move's phase, empty cells and loss (and, in the book, its loss
by the book's values). Each game's valuations are independent, so the work resumes per
game (a game already in FILE is skipped).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from daemon.book import load_book
from games import find_game
from games.base import ENDGAME, MIDDLE_GAME, OPENING, Game, Position
from tools.regret import deep_values, exact_values
from tools.solve import empties

PHASES = ("book", "opening", "early middle game", "late middle game", "endgame")
#: How long reading the book may take (s).
BOOK_WAIT_S = 60


def records(paths: list[Path]) -> list[Path]:
    """The record files named, or found in the folders named, sorted."""
    found = []
    for path in paths:
        found += sorted(path.glob("game-*.json")) if path.is_dir() else [path]
    return found


def phase_of(game: Game, position: Position, in_book: bool, late_from: int) -> str:
    if in_book:
        return "book"
    phase = game.phase(position)
    if phase == OPENING:
        return "opening"
    if phase == MIDDLE_GAME:
        return "late middle game" if empties(game, position) <= late_from else "early middle game"
    assert phase == ENDGAME
    return "endgame"


def game_losses(game: Game, record: dict, player: str, args: argparse.Namespace) -> dict:
    """The player's moves of one record, each with its phase, empty cells and loss, and
    its result (1 a win, 0.5 a draw, 0 a loss)."""
    book = load_book(game).result(BOOK_WAIT_S)
    seat = next(index for index, name in enumerate(record["seats"]) if name.startswith(player))
    position = game.parse_board(record["start"].split())
    moves = []
    for ply, entry in enumerate(record["moves"]):
        move = game.parse_move(position, entry["move"])
        if entry["player"] == seat and not entry.get("opening") and len(position.legal_moves()) > 1:
            board = game.format_board(position)
            count = empties(game, position)
            exact = count <= args.exact
            values = exact_values(game, board) if exact else deep_values(game, board, args.depth)[0]
            listed = book.moves(position)
            played = [choice.score for choice in listed if choice.text == entry["move"]]
            moves.append({"ply": ply, "move": entry["move"], "empties": count, "exact": exact,
                          "phase": phase_of(game, position, bool(listed), args.late_from),
                          "loss": round(max(values.values()) - values[entry["move"]], 3),
                          "book_loss": (listed[0].score - played[0]) / 100 if played else None})
        position = position.play(move)
    winner = record["result"]["winner"]
    return {"record": record.get("file"), "seat": seat, "score": 0.5 if winner is None else float(winner == seat),
            "moves": moves}


def lost(move: dict, threshold: float) -> bool:
    return move["loss"] > 1e-9 if move["exact"] else move["loss"] >= threshold


def report(games: list[dict], threshold: float) -> None:
    print(f"{len(games)} games, the player's score (a draw counting half)"
          f" {sum(item['score'] for item in games) / max(1, len(games)):.3f}")
    print(f"{'phase':>18} {'moves':>6} {'losing':>7} {'lost':>8} {'per game':>9} {'first loss':>10}"
          f" {'its size':>9}")
    firsts = [next((move for move in item["moves"] if lost(move, threshold)), None) for item in games]
    for phase in PHASES:
        moves = [move for item in games for move in item["moves"] if move["phase"] == phase]
        first = [move["loss"] for move in firsts if move is not None and move["phase"] == phase]
        total = sum(move["loss"] for move in moves)
        size = f"{sum(first) / len(first):9.2f}" if first else f"{'-':>9}"
        print(f"{phase:>18} {len(moves):>6} {sum(lost(move, threshold) for move in moves):>7}"
              f" {total:>8.1f} {total / max(1, len(games)):>9.2f} {len(first):>10} {size}")
    print(f"{'none':>18} {'':>6} {'':>7} {'':>8} {'':>9} {sum(move is None for move in firsts):>10}")
    by_book = [move["book_loss"] for item in games for move in item["moves"] if move.get("book_loss") is not None]
    if by_book:
        print(f"by the book's own values its {len(by_book)} moves lost {sum(by_book):.1f}"
              f" ({sum(by_book) / len(games):.2f} a game; {sum(loss > 0 for loss in by_book)} not its best)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/losses", description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("records", type=Path, nargs="+", help="arena records (game-*.json) or folders of them")
    parser.add_argument("--player", default="engine", help="the seat whose name starts with this (default engine)")
    parser.add_argument("--exact", type=int, default=18, help="prove moves with at most this many empty cells")
    parser.add_argument("--depth", type=int, default=14, help="the depth of the searches before")
    parser.add_argument("--late-from", type=int, default=32, help="the late middle game's most empty cells")
    parser.add_argument("--threshold", type=float, default=2.0, help="a searched move's loss that counts")
    parser.add_argument("--out", type=Path, help="JSON lines of every game's moves (resumes)")
    args = parser.parse_args(argv)
    game = find_game(args.game)
    kept = [json.loads(line) for line in args.out.read_text().splitlines()] if args.out and args.out.exists() else []
    done = {item["record"] for item in kept}
    games = list(kept)
    for path in records(args.records):
        if str(path) in done:
            continue
        record = {**json.loads(path.read_text()), "file": str(path)}
        item = game_losses(game, record, args.player, args)
        games.append(item)
        if args.out:
            with args.out.open("a") as out:
                out.write(json.dumps(item) + "\n")
        print(f"{path}: score {item['score']}, lost {sum(move['loss'] for move in item['moves']):.1f}",
              file=sys.stderr)
    report(games, args.threshold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
