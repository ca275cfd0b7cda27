"""`engine-analyse` over many records: folders and globs, resuming, the same analyses
from one engine, two or Ray workers, broken records, and the summary with its links
into the replay pages."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adapters.analysis.batch import Partial, _holding_ctrl_c, analysis_path, partial_path
from adapters.analysis.gamefile import read_game
from adapters.analysis.summary import Analysed, move_accuracy, phase, seat_summary, summarise, summary_text
from games import find_game
from protocol.client import Limit
from tests.adapters.deadlines import lenient_time_scale
from tests.conftest import DATA

ANALYSE = [sys.executable, "-m", "adapters.analysis.main"]
#: What Ray prints when its driver aborts on an internal check of its own.
RAY_INTERNAL_FAILURE = "You have likely discovered a bug in Ray"


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Four arena records of Clobber, greedy against random (real games, played out: the
    turns have LOAD_SLACK more, so that a bot slowed by a busy machine forfeits none)."""
    out = tmp_path_factory.mktemp("arena")
    subprocess.run([sys.executable, "-m", "adapters.arena.main", "clobber", "--bot", "greedy",
                    "--bot", "random", "--games", "4", "--jobs", "2", "--seed", "3", "--out", str(out), "--quiet",
                    "--time-scale", str(lenient_time_scale("clobber"))],
                   check=True, capture_output=True, timeout=300)
    return sorted(out.glob("game-*.json"))


def analyse(*arguments: str, code: int = 0) -> subprocess.CompletedProcess:
    result = subprocess.run([*ANALYSE, *arguments], capture_output=True, text=True, timeout=600)
    assert result.returncode == code, result.stderr
    return result


def copied(records: list[Path], folder: Path) -> list[Path]:
    folder.mkdir(parents=True)
    return [Path(shutil.copy(record, folder)) for record in records]


def analyses(folder: Path) -> dict[str, dict]:
    return {path.name: json.loads(path.read_text()) for path in sorted(folder.glob("*-analysis.json"))}


def test_a_folder_and_a_glob_make_one_batch_that_resumes(records: list[Path], tmp_path: Path) -> None:
    """Records from a folder and from a glob are analysed beside themselves, with their
    replay pages; a second run skips them; one analysed with other settings and one cut
    short are done again; one engine gives the same analyses as two."""
    first = copied(records[:2], tmp_path / "runs")
    last = copied(records[2:3], tmp_path / "more")
    result = analyse(str(tmp_path / "runs"), str(tmp_path / "more" / "*.json"), "--depth", "1", "--jobs", "2")
    # The summary goes to the folder the records have in common.
    assert "3 games" in result.stdout and result.stdout.rstrip().endswith(str(tmp_path / "analysis-summary.json"))
    assert "pos/s" not in result.stderr  # no progress bar: stderr is no terminal
    for record in first + last:
        analysis = json.loads(record.with_name(record.stem + "-analysis.json").read_text())
        assert [ply["played"] for ply in analysis["plies"]] == [move["move"] for move in json.loads(
            record.read_text())["moves"]]
        assert analysis["limit"]["depth"] == 1 and analysis["top"] == 3
        assert analysis["players"] == ["greedy", "random"] or analysis["players"] == ["random", "greedy"]
        assert record.with_suffix(".html").exists()
    summary = json.loads((tmp_path / "analysis-summary.json").read_text())
    assert [entry["status"] for entry in summary["records"]] == ["analysed"] * 3
    assert set(summary["players"]) == {"greedy", "random"}

    analyse(str(tmp_path / "runs"), str(tmp_path / "more"), "--depth", "1", "--jobs", "1", "--out", str(tmp_path / "one"))
    assert analyses(tmp_path / "one") == {**analyses(tmp_path / "runs"), **analyses(tmp_path / "more")}
    alone = json.loads((tmp_path / "one" / "analysis-summary.json").read_text())
    assert (alone["players"], alone["phases"]) == (summary["players"], summary["phases"])

    again = analyse(str(tmp_path / "runs"), str(tmp_path / "more" / "*.json"), "--depth", "1", "--jobs", "2")
    assert "3 of 3 records already analysed with these settings" in again.stderr
    assert again.stdout == result.stdout

    kept = first[0].with_name(first[0].stem + "-analysis.json")
    before = kept.stat().st_mtime_ns
    other = first[1].with_name(first[1].stem + "-analysis.json")
    changed = json.loads(other.read_text())
    changed["limit"]["depth"] = 2
    other.write_text(json.dumps(changed))
    cut = last[0].with_name(last[0].stem + "-analysis.json")
    cut.write_text(cut.read_text()[:500])
    resumed = analyse(str(tmp_path / "runs"), str(tmp_path / "more" / "*.json"), "--depth", "1", "--jobs", "2")
    assert "1 of 3 records already analysed" in resumed.stderr
    assert resumed.stdout == result.stdout and kept.stat().st_mtime_ns == before
    assert json.loads(other.read_text())["limit"]["depth"] == 1


def test_an_interrupted_batch_leaves_whole_files_and_goes_on(records: list[Path], tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    copied(records, folder)
    command = [*ANALYSE, str(folder), "--depth", "4", "--jobs", "1"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(folder.glob("*-analysis.json")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    written = analyses(folder)
    if process.returncode == 0:
        pytest.skip("the batch ended before it could be interrupted")
    assert process.returncode == 130 and "Traceback" not in stderr
    # Every analysis there is whole JSON, and so is every line of the positions kept.
    kept = [json.loads(line) for path in folder.glob("*.partial.jsonl") for line in path.read_text().splitlines()[1:]]
    assert f"interrupted: {len(written)} of 4 records analysed (now or before), and {len(kept)} positions" in stderr
    assert 1 <= len(written) < 4
    assert not [path for path in folder.iterdir() if path.name.startswith(".")]  # no temporary file left
    result = analyse(str(folder), "--depth", "4", "--jobs", "1")
    assert f"{len(written)} of 4 records already analysed" in result.stderr
    assert not kept or f"going on with {len(kept)} positions analysed before" in result.stderr
    assert len(analyses(folder)) == 4 and {name: analyses(folder)[name] for name in written} == written
    assert not list(folder.glob("*.partial.jsonl"))


def test_a_record_goes_on_from_the_positions_analysed_before(records: list[Path], tmp_path: Path) -> None:
    """The positions kept of a record not finished are not analysed again; a line cut
    short, and a file of other settings, are not taken."""
    whole = tmp_path / "whole"
    copied(records[:1], whole)
    analyse(str(whole), "--depth", "2", "--jobs", "1")
    expected = analyses(whole)[f"{records[0].stem}-analysis.json"]
    folder = tmp_path / "runs"
    record, = copied(records[:1], folder)
    game = read_game(record)
    partial = Partial(partial_path(analysis_path(record, None)), game, Limit(depth=2), 3)
    assert not partial.known
    for ply in expected["plies"][:5]:
        partial.add(ply["ply"] - 1, {key: value for key, value in ply.items() if key != "ply"})
    text = partial.path.read_text()
    head, first, *rest = text.splitlines()
    marked = json.loads(first)
    marked["analysis"]["loss"] = 12345  # shows whether the kept analysis was taken
    partial.path.write_text("\n".join([head, json.dumps(marked), *rest]) + "\n" + rest[0][:40])
    result = analyse(str(folder), "--depth", "2", "--jobs", "1")
    assert "going on with 5 positions analysed before, of 1 records" in result.stderr
    done = analyses(folder)[f"{record.stem}-analysis.json"]
    assert done["plies"][0]["loss"] == 12345
    done["plies"][0]["loss"] = expected["plies"][0]["loss"]
    assert done == expected and not partial.path.exists()

    # A file cut short goes on from its whole lines; one of other settings is not used.
    partial = Partial(partial.path, game, Limit(depth=2), 3)
    for ply in expected["plies"][:3]:
        partial.add(ply["ply"] - 1, {key: value for key, value in ply.items() if key != "ply"})
    partial.path.write_text(partial.path.read_text()[:-10])
    assert sorted(Partial(partial.path, game, Limit(depth=2), 3).known) == [0, 1]
    assert not Partial(partial.path, game, Limit(depth=3), 3).known
    assert not Partial(partial.path, game, Limit(depth=2), 2).known


def test_a_kept_position_of_other_types_is_analysed_again(records: list[Path], tmp_path: Path) -> None:
    """A line of the positions kept whose fields are not of their types is not taken,
    as a line cut short is not: that position is analysed again; and so is a record
    whose analysis has such a position."""
    whole = tmp_path / "whole"
    copied(records[:1], whole)
    analyse(str(whole), "--depth", "1", "--jobs", "1")
    expected = analyses(whole)[f"{records[0].stem}-analysis.json"]
    record, = copied(records[:1], tmp_path / "runs")
    game = read_game(record)
    path = partial_path(analysis_path(record, None))
    bad = {"loss": "abc", "top": 5, "points_lost": [1], "played_wdl": [1, 2], "best_score": "cp x",
           "mark": "blunder"}  # the last: no mark its points lost earn
    for key, value in bad.items():
        partial = Partial(path, game, Limit(depth=1), 3)
        partial.remove()
        partial = Partial(path, game, Limit(depth=1), 3)
        plies = [{field: entry for field, entry in ply.items() if field != "ply"} for ply in expected["plies"][:3]]
        plies[1][key] = value
        for index, ply in enumerate(plies):
            partial.add(index, ply)
        assert sorted(Partial(path, game, Limit(depth=1), 3).known) == [0], key
    result = analyse(str(tmp_path / "runs"), "--depth", "1", "--jobs", "1")
    assert "going on with 1 positions analysed before, of 1 records" in result.stderr
    assert analyses(tmp_path / "runs")[f"{record.stem}-analysis.json"] == expected and not path.exists()
    written = analysis_path(record, None)
    changed = json.loads(written.read_text())
    changed["plies"][-1]["loss"] = "abc"
    written.write_text(json.dumps(changed))
    result = analyse(str(tmp_path / "runs"), "--depth", "1", "--jobs", "1")
    assert "already analysed" not in result.stderr and json.loads(written.read_text()) == expected


def test_a_batch_that_cannot_write_says_where(records: list[Path], tmp_path: Path) -> None:
    """A folder of the outputs that cannot be made stops the batch before its analysis;
    a summary that cannot be written at its end is named, the analyses kept."""
    folder = tmp_path / "runs"
    copied(records[:1], folder)
    (tmp_path / "file").write_text("a file, not a folder")
    for option, words in (("--out", f"cannot write {tmp_path / 'file' / 'x'}: Not a directory"),
                          ("--summary", f"cannot write in {tmp_path / 'file'}: not a folder")):
        result = analyse(str(folder), option, str(tmp_path / "file" / "x"), "--engine", "no-such-engine", code=2)
        assert f"engine-analyse: {words}" in result.stderr
        assert "Traceback" not in result.stderr and not analyses(folder)
    (tmp_path / "taken.json").mkdir()
    result = analyse(str(folder), "--summary", str(tmp_path / "taken.json"), "--depth", "1", code=2)
    assert f"engine-analyse: cannot write {tmp_path / 'taken.json'}: Is a directory" in result.stderr
    assert "Traceback" not in result.stderr and len(analyses(folder)) == 1


def test_ray_workers_give_the_analyses_of_local_ones(records: list[Path], tmp_path: Path) -> None:
    pytest.importorskip("ray")
    copied(records[:2], tmp_path / "runs")
    analyse(str(tmp_path / "runs"), "--depth", "1", "--jobs", "2", "--out", str(tmp_path / "local"))
    command = [*ANALYSE, str(tmp_path / "runs"), "--depth", "1", "--jobs", "2", "--ray", "local",
               "--out", str(tmp_path / "ray")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0 and RAY_INTERNAL_FAILURE in result.stderr:
        # Ray's own driver aborted on one of its internal checks: the batch resumes.
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if result.returncode != 0 and "ray" in result.stderr.lower() and not list((tmp_path / "ray").glob("*.json")):
        pytest.skip(f"Ray could not start here: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stderr
    assert analyses(tmp_path / "ray") == analyses(tmp_path / "local") and len(analyses(tmp_path / "ray")) == 2


def test_broken_records_are_named_and_skipped(records: list[Path], tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    good, illegal = copied(records[:2], folder)
    record = json.loads(illegal.read_text())
    record["moves"][3]["move"] = record["moves"][0]["move"]
    illegal.write_text(json.dumps(record))
    (folder / "notes.json").write_text("{not json")
    (folder / "deep.json").write_text('{"game": "clobber", "moves": ' + "[" * 100_000 + "]" * 100_000 + "}")
    (folder / "latin.json").write_bytes(b'{"game": "clobber", "seats": ["\xe9"], "moves": []}')
    result = analyse(str(folder), str(tmp_path / "missing.json"), "--depth", "1", "--jobs", "2", code=1)
    assert f"{illegal}: move 4" in result.stderr and f"{folder / 'notes.json'}: not JSON" in result.stderr
    assert f"{folder / 'deep.json'}: its JSON is nested too deep to read: skipped" in result.stderr
    assert f"{folder / 'latin.json'}: not UTF-8 text (byte 0xe9 at offset 31): skipped" in result.stderr
    assert f"{tmp_path / 'missing.json'}: no such file or folder" in result.stderr
    assert "5 of 6 records or inputs failed" in result.stderr and "Traceback" not in result.stderr
    assert list(analyses(folder)) == [good.stem + "-analysis.json"] and "1 game," in result.stdout
    summary = json.loads((folder / "analysis-summary.json").read_text())
    assert {entry["record"]: entry["status"] for entry in summary["records"]} == {
        str(tmp_path / "missing.json"): "failed", str(illegal): "failed", str(folder / "notes.json"): "failed",
        str(folder / "deep.json"): "failed", str(folder / "latin.json"): "failed", str(good): "analysed"}
    clash = tmp_path / "other"
    copied(records[:1], clash)
    result = analyse(str(folder / good.name), str(clash), "--depth", "1", "--out", str(tmp_path / "out"), code=2)
    assert "would both write" in result.stderr


def test_the_worst_moves_link_to_their_ply_in_the_replay_page(records: list[Path], tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    copied(records[:2], folder)
    out = tmp_path / "out"
    result = analyse(str(folder), "--depth", "1", "--jobs", "2", "--out", str(out), "--worst", "3")
    worst = json.loads((out / "analysis-summary.json").read_text())["worst"]
    assert len(worst) == 3 and worst[0]["points_lost"] >= worst[1]["points_lost"] >= worst[2]["points_lost"] > 0
    move = worst[0]
    page, fragment = move["link"].split("#")
    assert page == (out / (Path(move["record"]).stem + ".html")).resolve().as_uri()
    assert fragment == str(move["ply"])
    assert move["link"] in result.stdout
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the page's script was not run")
    checked = json.loads(subprocess.run([node, str(DATA / "replay_check.js"), page.removeprefix("file://"),
                                         f"#{fragment}"], capture_output=True, text=True, check=True,
                                        timeout=60).stdout)
    assert checked["atLoad"].startswith(f"step {move['ply']} / ") and f"plays {move['played']}" in checked["atLoad"]
    assert checked["steps"][move["ply"]]["engine"].startswith(f"engine, before {move['played']}: best {move['best']}")


def _clobber_board(pieces: int) -> str:
    """A Clobber board text with `pieces` pieces, the rest of the start's removed."""
    grid, *rest = find_game("clobber").format_board(find_game("clobber").initial_state({})).split()
    cells = ["."] * (64 - pieces) + list(grid.replace("/", ""))[64 - pieces:]
    return " ".join(["/".join("".join(cells[row * 8:row * 8 + 8]) for row in range(8)), *rest])


#: A board of each phase (`ClobberGame.phase`: the opening down to 51 pieces, the endgame
#: from 36).
BOARDS = {"opening": _clobber_board(60), "middle game": _clobber_board(45), "endgame": _clobber_board(36)}


def _report(players: list, marks: list[tuple[int, float | None, str | None, str]]) -> dict:
    """An analysis of Clobber whose plies have (player, points lost, mark, phase)."""
    return {"game": "clobber", "players": players,
            "plies": [{"ply": number, "player": player, "points_lost": lost, "loss": int(1000 * (lost or 0)),
                       "mark": marked, "played": f"m{number}", "best": f"b{number}", "board": BOARDS[when]}
                      for number, (player, lost, marked, when) in enumerate(marks, 1)]}


def test_a_moves_phase_is_its_positions() -> None:
    """The phase comes from the position, not from where the ply falls in its record:
    the fourth ply of a four-ply Othello record is in the opening, and so is the same
    position in a longer record."""
    othello = find_game("othello")
    position = othello.initial_state({})
    for token in ("f5", "d6", "c3", "d3"):
        position = position.play(othello.parse_move(position, token))
    ply = {"board": othello.format_board(position)}
    assert phase(othello, ply) == "opening"
    assert [phase(find_game("clobber"), {"board": board}) for board in BOARDS.values()] == list(BOARDS)
    assert phase(find_game("clobber"), {"board": _clobber_board(51)}) == "opening"
    assert phase(find_game("clobber"), {"board": _clobber_board(37)}) == "middle game"


def test_the_summary_counts_per_player_and_phase() -> None:
    """Names come from the records, an unnamed seat is its side; each move counts in its
    position's phase; the worst moves are ordered by points lost, and linked where a
    page is."""
    first = _report(["ann", "bob"], [(0, 0.0, None, "opening"), (1, 0.15, "mistake", "opening"),
                                     (0, 0.3, "blunder", "middle game"), (1, 0.0, None, "middle game"),
                                     (0, None, None, "endgame"), (1, 0.25, "blunder", "endgame")])
    second = _report(["bob", None], [(0, 0.12, "mistake", "opening"), (1, 0.5, "blunder", "middle game"),
                                     (0, 0.0, None, "endgame")])
    summary = summarise([Analysed(first, "a.json", "file:///a.html"), Analysed(second, "b.json")], worst=3)
    assert (summary["games"], summary["plies"]) == (2, 9)
    assert list(summary["players"]) == ["ann", "bob", "(black)"]
    ann, bob, black = (summary["players"][name] for name in ("ann", "bob", "(black)"))
    accuracy = {lost: move_accuracy(lost) for lost in (0.0, 0.12, 0.15, 0.25, 0.3, 0.5)}
    assert ann["all"] == {"moves": 3, "inaccuracies": 0, "mistakes": 0, "blunders": 1, "points_lost_mean": 0.15,
                          "accuracy": round((accuracy[0.0] + accuracy[0.3]) / 2, 1)}
    assert ann["middle game"]["blunders"] == 1 and ann["endgame"]["points_lost_mean"] is None
    assert ann["endgame"]["accuracy"] is None
    assert bob["all"] == {"moves": 5, "inaccuracies": 0, "mistakes": 2, "blunders": 1, "points_lost_mean": 0.104,
                          "accuracy": round((2 * accuracy[0.0] + accuracy[0.12] + accuracy[0.15]
                                             + accuracy[0.25]) / 5, 1)}
    assert bob["opening"] == {"moves": 2, "inaccuracies": 0, "mistakes": 2, "blunders": 0, "points_lost_mean": 0.135,
                              "accuracy": round((accuracy[0.12] + accuracy[0.15]) / 2, 1)}
    assert black["middle game"] == {"moves": 1, "inaccuracies": 0, "mistakes": 0, "blunders": 1,
                                    "points_lost_mean": 0.5, "accuracy": round(accuracy[0.5], 1)}
    assert summary["phases"]["all"]["mistakes"] == 2 and summary["phases"]["all"]["blunders"] == 3
    assert [(move["record"], move["ply"], move["player"], move["phase"], move["link"]) for move in summary["worst"]] == [
        ("b.json", 2, "(black)", "middle game", None), ("a.json", 3, "ann", "middle game", "file:///a.html#3"),
        ("a.json", 6, "bob", "endgame", "file:///a.html#6")]
    text = summary_text(summary)
    assert "2 games, 9 moves analysed" in text and "file:///a.html#3" in text
    assert "  1. 0.500 lost, b.json ply 2: (black) (black, middle game) played m2, best b2 (blunder)" in text


def test_an_unmarked_move_that_gives_up_enough_is_an_inaccuracy_and_accuracy_falls_with_the_loss() -> None:
    report = _report(["ann", None], [(0, 0.0, None, "opening"), (1, 0.04, None, "opening"),
                                     (0, 0.06, None, "middle game"), (1, 0.1, "mistake", "middle game"),
                                     (0, 0.05, None, "endgame")])
    ann, black = seat_summary(report)
    assert (ann["player"], ann["side"], black["player"], black["side"]) == ("ann", "white", "(black)", "black")
    assert (ann["inaccuracies"], ann["mistakes"], black["inaccuracies"], black["mistakes"]) == (2, 0, 0, 1)
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=1e-3) and move_accuracy(1.0) == 0.0
    assert [round(move_accuracy(lost), 1) for lost in (0.05, 0.1, 0.2, 0.5)] == [79.8, 63.6, 40.0, 8.5]
    assert 100 >= ann["accuracy"] > black["accuracy"] > 0


def test_ctrl_c_in_a_held_block_comes_at_its_end() -> None:
    # Python's own handler to begin with, whatever an earlier test of this process left
    # (a Ray driver installs its own).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with _holding_ctrl_c():
                signal.raise_signal(signal.SIGINT)
                done.append("saved")
                done.append("counted")
            done.append("after")
        assert done == ["saved", "counted"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
