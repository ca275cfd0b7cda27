"""`engine-analyse`: a whole game analysed by real engine sessions, to JSON and pictures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from adapters.analysis.main import BLUNDER_CP, MISTAKE_CP
from games import find_game

def clobber_game(plies: int, seed: int) -> tuple[str, list[str]]:
    """A move-list file of `plies` random legal moves, and the moves."""
    import random

    clobber = find_game("clobber")
    rng = random.Random(seed)
    position, moves = clobber.initial_state({}), []
    for _ in range(plies):
        move = rng.choice(position.legal_moves())
        moves.append(clobber.format_move(position, move))
        position = position.play(move)
    text = "setgame clobber   # a comment\n" + " ".join(moves[:4]) + "\n" + " ".join(moves[4:]) + "\n"
    return text, moves


def analyse(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "adapters.analysis.main", *arguments, "--quiet"],
                          capture_output=True, text=True, timeout=600)


def test_a_move_list_is_analysed_ply_by_ply(tmp_path: Path) -> None:
    game = tmp_path / "game.txt"
    text, moves = clobber_game(6, 11)
    game.write_text(text)
    result = analyse(str(game), "--depth", "2", "--top", "3", "--jobs", "2", "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    plies = report["plies"]
    assert [ply["ply"] for ply in plies] == [1, 2, 3, 4, 5, 6]
    assert [ply["played"] for ply in plies] == moves
    clobber = find_game("clobber")
    for ply in plies:
        position = clobber.parse_board(ply["board"].split())
        legal = {clobber.format_move(position, move) for move in position.legal_moves()}
        assert 1 <= len(ply["top"]) <= 3 and {line["move"] for line in ply["top"]} <= legal
        assert ply["best"] == ply["top"][0]["move"] and ply["loss"] >= 0
        assert sum(ply["played_wdl"]) == 1000 and all(sum(line["wdl"]) == 1000 for line in ply["top"])
        expected = "blunder" if ply["loss"] >= BLUNDER_CP else "mistake" if ply["loss"] >= MISTAKE_CP else None
        assert ply["mark"] == expected
        if ply["played"] == ply["best"]:
            assert ply["loss"] == 0
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "out.svg").read_text().lstrip().startswith("<?xml")


def test_an_arena_record_from_its_start_board(tmp_path: Path) -> None:
    othello = find_game("othello")
    start = othello.initial_state({})
    record = {"game": "othello", "start": othello.format_board(start),
              "moves": [{"player": 0, "move": "d3"}, {"player": 1, "move": "c5"}, {"player": 0, "move": "f6"}]}
    path = tmp_path / "game-0000.json"
    path.write_text(json.dumps(record))
    result = analyse(str(path), "--nodes", "2000", "--top", "1", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "game-0000-analysis.json").read_text())
    assert [ply["played"] for ply in report["plies"]] == ["d3", "c5", "f6"]
    assert report["limit"]["nodes"] == 2000


def test_a_bad_game_file_says_what_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    _, moves = clobber_game(1, 3)
    path.write_text(f"setgame clobber\n{moves[0]} {moves[0]}\n")
    result = analyse(str(path))
    assert result.returncode == 2 and f"move 2 ({moves[0]})" in result.stderr
    path.write_text("a2a3\n")
    assert "the first line must be setgame" in analyse(str(path)).stderr
    path.write_text(f"setgame clobber\n{moves[0]}\n")
    gone = analyse(str(path), "--connect", "127.0.0.1:1")
    assert gone.returncode == 2 and "engine-analyse: ConnectionRefusedError" in gone.stderr
    assert "Traceback" not in gone.stderr


def test_a_codingame_replay_is_analysed_without_naming_its_game(tmp_path: Path) -> None:
    from tests.adapters.test_gamefile import random_replay

    document, moves, _ = random_replay("othello", 4)
    frames = document["gameResult"]["frames"]
    del frames[7:]
    frames[6]["stdout"] = ""  # the sixth turn timed out: the analysis stops before it
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(document))
    result = analyse(str(path), "--nodes", "1000", "--top", "2", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert "the record stops after 5 moves: timeout: agent 1 gave no output at turn 6" in result.stderr
    report = json.loads((tmp_path / "replay-analysis.json").read_text())
    assert report["game"] == "othello" and report["stopped"].startswith("timeout")
    assert [ply["played"] for ply in report["plies"]] == moves[:5]
