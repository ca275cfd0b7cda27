"""The move-choice benchmark (`tools.regret`) and the loss diagnosis (`tools.losses`):
references made from expert games in the WTHOR format, and losses that add up along a
game to the difference between its exact value and its final margin."""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path

from games import find_game
from tests.games.test_othello_training import random_game, write_games
from tools import losses, regret
from tools.solve import empties

OTHELLO = find_game("othello")
ROOT = Path(__file__).resolve().parents[2]


def expert_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "wthor"
    folder.mkdir()
    write_games(folder, [(codes, real, 32) for codes, real, _ in (random_game(seed) for seed in range(8))])
    return folder


def test_references_value_every_move_and_the_engine_is_scored_against_them(tmp_path: Path) -> None:
    folder = expert_folder(tmp_path)
    exact, deep = tmp_path / "exact.jsonl", tmp_path / "deep.jsonl"
    for out, extra in ((exact, ["--exact"]), (deep, ["--depth", "6"])):
        for _ in range(2):  # the second run finds every position done
            assert regret.main(["reference", "othello", "--games", str(folder), "--out", str(out),
                                "--empties", "10-12", "--positions", "3", *extra]) == 0
    proved, searched = regret.read_references(exact), regret.read_references(deep)
    assert [item.empties for item in proved] == [10, 11, 12] and [item.board for item in searched] == [
        item.board for item in proved]
    for item, other in zip(proved, searched):
        position = OTHELLO.parse_board(item.board.split())
        moves = {OTHELLO.format_move(position, move) for move in position.legal_moves()}
        assert set(item.values) == set(other.values) == set(other.previous) == moves
        # The best move's exact value is the position's own, proved whole.
        engine = regret.tool_engine("othello", (("Hash", regret.REFERENCE_HASH_MIB),))
        engine.hash_clear()
        engine.set_position(tuple(item.board.split()), ())
        assert item.best == regret.prove(engine).margin
        assert min(item.regret(move) for move in moves) == 0
    result = subprocess.run([sys.executable, "-m", "tools.regret", "measure", "othello", str(exact),
                             "--movetime", "50"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "50 ms, all" in result.stdout and "10-14" in result.stdout


def test_a_games_losses_add_up_to_its_value_less_its_final_margin(tmp_path: Path) -> None:
    rng = random.Random(3)
    position = OTHELLO.initial_state({})
    while empties(OTHELLO, position) > 11:
        position = position.play(rng.choice(position.legal_moves()))
    start, moves = position, []
    while position.outcome() is None:
        move = rng.choice(position.legal_moves())
        moves.append({"player": position.to_move, "move": OTHELLO.format_move(position, move)})
        position = position.play(move)
    final = position.outcome().margin[start.to_move]
    record = {"start": OTHELLO.format_board(start), "seats": ["engine", "other"], "moves": moves,
              "result": {"scores": [1, 0], "winner": 0}}
    options = argparse.Namespace(exact=64, depth=4, late_from=32)
    lost = [sum(move["loss"] for move in losses.game_losses(OTHELLO, record, name, options)["moves"])
            for name in ("engine", "other")]
    values = regret.exact_values(OTHELLO, record["start"])
    mover = start.to_move
    # Each move's loss is the value its player gave up; the rest is the final margin.
    assert max(values.values()) - lost[mover] + lost[1 - mover] == final
    items = losses.game_losses(OTHELLO, record, "engine", options)["moves"]
    assert all(item["exact"] and item["phase"] == "endgame" and item["book_loss"] is None for item in items)


def test_book_moves_are_in_the_book_phase_with_their_loss_by_the_books_values() -> None:
    book = losses.load_book(OTHELLO).result(losses.BOOK_WAIT_S)
    position, moves, expected = OTHELLO.initial_state({}), [], []
    for ply in range(4):
        listed = book.moves(position)
        choice = listed[-1] if ply == 1 else listed[0]  # the book's worst listed move once
        expected.append((listed[0].score - choice.score) / 100)
        moves.append({"player": position.to_move, "move": choice.text})
        position = position.play(choice.move)
    record = {"start": OTHELLO.format_board(OTHELLO.initial_state({})), "seats": ["engine", "other"],
              "moves": moves, "result": {"scores": [0, 0], "winner": None}}
    options = argparse.Namespace(exact=18, depth=4, late_from=32)
    found = [losses.game_losses(OTHELLO, record, name, options) for name in ("engine", "other")]
    assert [item["score"] for item in found] == [0.5, 0.5]
    books = sorted((move["ply"], move["phase"], move["book_loss"]) for item in found for move in item["moves"])
    assert books == [(ply, "book", expected[ply]) for ply in range(4)]  # every opening move has a choice
    assert expected[1] > 0 and expected[0] == expected[2] == expected[3] == 0
