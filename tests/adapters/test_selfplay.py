"""engine-selfplay: real engines play through the protocol; the records replay through
the rules, runs are reproducible and resumable, and Ray tasks play the same games as
local processes."""

from __future__ import annotations

import gzip
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.codingame import turn_format
from adapters.arena.selfplay import Player, read_records

SELFPLAY = [sys.executable, "-m", "adapters.arena.selfplay"]
#: What Ray prints when its driver aborts on an internal check of its own.
RAY_INTERNAL_FAILURE = "You have likely discovered a bug in Ray"


def selfplay(out: Path, *arguments: str, code: int = 0) -> subprocess.CompletedProcess:
    result = subprocess.run([*SELFPLAY, *arguments, "--out", str(out), "--quiet"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == code, result.stderr
    return result


def checked(record: dict) -> None:
    """The record's moves, replayed through the rules, give its boards, final position
    and result."""
    fmt = turn_format(record["game"])
    game = fmt.GAME
    state = game.parse_board(record["start"].split())
    for token in record["opening"]:
        state = state.play(game.parse_move(state, token))
    for move in record["moves"]:
        assert move["player"] == state.to_move
        if not move.get("auto"):
            assert move["board"] == game.format_board(state)
            assert ("cp" in move) != ("mate" in move) and move["nodes"] >= 1 and move["depth"] >= 1
        state = state.play(game.parse_move(state, move["move"]))
    outcome = state.outcome()
    assert outcome is not None and record["final"] == game.format_board(state)
    assert record["result"]["returns"] == list(outcome.returns)
    assert record["result"]["reason"] == outcome.reason
    points = record["result"]["points"]
    assert all(0 <= point <= 1 for point in points)
    assert sum(points) == pytest.approx(len(points) / 2)


def moves_of(out: Path) -> dict[int, list]:
    """Each game's seats, opening and moves, without the timings."""
    return {record["index"]: [record["seats"], record["opening"],
                              [(move["move"], move.get("cp"), move.get("mate")) for move in record["moves"]]]
            for record in read_records(out)}


def test_two_configurations_rotate_seats_and_every_record_replays(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = selfplay(out, "clobber", "--games", "4", "--jobs", "2", "--nodes", "3000",
                      "--engine", "small:Hash=1", "--engine", "large:Hash=32", "--shard-size", "3")
    records = sorted(read_records(out), key=lambda record: record["index"])
    assert [record["index"] for record in records] == [0, 1, 2, 3]
    assert [record["seats"] for record in records] == [["small", "large"], ["large", "small"]] * 2
    # A pair shares its seed and its opening of four random plies.
    assert records[0]["opening"] == records[1]["opening"] != records[2]["opening"] == records[3]["opening"]
    assert all(len(record["opening"]) == 4 for record in records)
    for record in records:
        checked(record)
        assert record["go"] == "go nodes 3000"
    assert sorted(path.name for path in out.iterdir()) == ["run.json", "shard-00000.jsonl.gz",
                                                           "shard-00001.jsonl.gz"]
    assert "clobber: 4 games" in result.stdout
    with gzip.open(out / "shard-00000.jsonl.gz", "rt") as shard:
        assert len(shard.read().splitlines()) == 3


def test_a_run_resumes_extends_and_is_reproducible(tmp_path: Path) -> None:
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    arguments = ("othello", "--nodes", "2000", "--jobs", "1", "--seed", "3", "--random-plies", "6")
    selfplay(whole, *arguments, "--games", "4")
    selfplay(parts, *arguments, "--games", "2", "--shard-size", "10")
    # A run interrupted while writing: one game in pending, then half a line.
    shard = next(parts.glob("shard-*.jsonl.gz"))
    with gzip.open(shard, "rt") as handle:
        first, second = handle.read().splitlines()
    shard.unlink()
    (parts / "pending.jsonl").write_text(first + "\n" + second[: len(second) // 2])
    result = selfplay(parts, *arguments, "--games", "4")
    assert "1 of 4 games already" in result.stderr
    assert moves_of(parts) == moves_of(whole)
    assert len(moves_of(whole)) == 4
    # Other parameters into the same directory are refused, and nothing is lost.
    refused = selfplay(parts, "othello", "--nodes", "2001", "--games", "5", code=2)
    assert "other parameters" in refused.stderr
    assert len(moves_of(parts)) == 4


def test_ray_tasks_play_the_same_games_as_local_processes(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    arguments = ("isolation", "--games", "6", "--nodes", "2000", "--jobs", "2", "--seed", "11",
                 "--engine", "par:MultiPlayerSearch=paranoid", "--engine", "brs:MultiPlayerSearch=brs",
                 "--engine", "maxn:MultiPlayerSearch=maxn")
    selfplay(tmp_path / "local", *arguments)
    ray_run = [*SELFPLAY, *arguments, "--ray", "local", "--out", str(tmp_path / "ray"), "--quiet"]
    result = subprocess.run(ray_run, capture_output=True, text=True, timeout=600)
    if result.returncode != 0 and RAY_INTERNAL_FAILURE in result.stderr:
        # Ray's own driver aborted on one of its internal checks (once in some ten runs
        # on a loaded two-core machine): the run resumes where it stopped, as any run.
        result = subprocess.run(ray_run, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    local, ray = moves_of(tmp_path / "local"), moves_of(tmp_path / "ray")
    assert local == ray and len(local) == 6
    assert sorted(tuple(seats) for seats, _, _ in local.values()) == sorted(
        __import__("itertools").permutations(["par", "brs", "maxn"]))
    for record in read_records(tmp_path / "ray"):
        checked(record)
        assert record["seed"] == 11


def test_openings_file_and_bad_arguments(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("# two openings\nf5 d6\n\nf5 f6 e6  # a comment\n")
    out = tmp_path / "run"
    selfplay(out, "othello", "--openings", str(openings), "--games", "3", "--nodes", "1000", "--jobs", "1")
    assert [record["opening"] for record in sorted(read_records(out), key=lambda r: r["index"])] == [
        ["f5", "d6"], ["f5", "f6", "e6"], ["f5", "d6"]]
    openings.write_text("f5 d6\nf5 a1\n")
    error = selfplay(tmp_path / "bad", "othello", "--openings", str(openings), code=2)
    assert "line 2: move 2" in error.stderr
    error = selfplay(tmp_path / "bad", "othello", "--engine", "a:Hash", code=2)
    assert "OPTION=VALUE" in error.stderr
    error = selfplay(tmp_path / "bad", "othello", "--engine", "a", "--engine", "b", "--engine", "c", code=2)
    assert "one engine or 2" in error.stderr
    error = selfplay(tmp_path / "bad", "othello", "--engine", "a:Hash=banana", "--games", "1", code=1)
    assert "engine a: error" in error.stderr


def test_player_configuration_text() -> None:
    command = ("engine",)
    assert Player.parse("fast:Hash=64, Ponder=false", command) == Player(
        "fast", (("Hash", "64"), ("Ponder", "false")), command)
    assert Player.parse("plain", command).options == ()
    with pytest.raises(ValueError):
        Player.parse("bad name:Hash=1", command)


def test_sigterm_stops_a_run_that_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    arguments = ["othello", "--games", "400", "--nodes", "3000", "--jobs", "2", "--out", str(out), "--quiet"]
    process = subprocess.Popen([*SELFPLAY, *arguments], stderr=subprocess.PIPE, text=True)
    pending = out / "pending.jsonl"
    deadline = time.monotonic() + 300
    while not (pending.exists() and pending.read_text().count("\n") >= 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and "run the same command again to resume" in stderr
    kept = {record["index"] for record in read_records(out)}
    assert 2 <= len(kept) < 400
    # The run goes on from there: a larger --games is an extension of the same run.
    more = max(kept) + 3
    result = subprocess.run([*SELFPLAY, "othello", "--games", str(more), *arguments[3:]],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert {record["index"] for record in read_records(out)} == set(range(more))
