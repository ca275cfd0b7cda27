"""`engine-analyse`: a whole game analysed by real engine sessions, to JSON and pictures."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.analysis.analyse import BLUNDER_POINTS, MISTAKE_POINTS, analyse_ply, mark
from adapters.analysis.gamefile import Game, read_replay
from adapters.analysis.picture import player_labels, plot, score_heights
from adapters.codingame import formats, turn_format
from adapters.view.engine import expected_points
from games import find_game
from protocol import shared
from protocol.client import Limit
from protocol.info import Info, Score, Wdl
from records.sgf import read_sgf
from tests.conftest import engine_command
from tools.hostile import broken

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
        lost = expected_points(ply["top"][0]["wdl"]) - expected_points(ply["played_wdl"])
        assert ply["points_lost"] == pytest.approx(max(0.0, lost))
        expected = ("blunder" if ply["points_lost"] >= BLUNDER_POINTS else
                    "mistake" if ply["points_lost"] >= MISTAKE_POINTS else None)
        assert ply["mark"] == expected
        if ply["played"] == ply["best"]:
            assert ply["loss"] == 0 and ply["points_lost"] == 0
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "out.svg").read_text().lstrip().startswith("<?xml")
    # The annotated record: each move's analysis as its comment, the marks as glyphs,
    # and the engine's line as a variation where a marked move was not its best.
    (record,) = read_sgf((tmp_path / "out.sgf").read_text(), "out.sgf")
    assert record.moves() == moves and record.headers["AN"] == "engine-analyse"
    parent = record.root
    for ply, node in zip(plies, record.root.main_line()):
        assert node.comment.startswith(ply["played_score"]) and f"(depth {ply['depth']})" in node.comment
        assert node.glyphs == {"mistake": [2], "blunder": [4], None: []}[ply["mark"]]
        others = {child.move: child for child in parent.children[1:]}
        if ply["mark"] and ply["best"] != ply["played"]:
            assert others[ply["best"]].comment.startswith("the engine's line: " + ply["best_score"])
        else:
            assert not others
        parent = node


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


def test_the_picture_names_the_players_by_side_and_bot(tmp_path: Path) -> None:
    """The legends say each player's colour and the bot the record names in its seat;
    without names, the colour alone."""
    othello = find_game("othello")
    record = {"game": "othello", "start": othello.format_board(othello.initial_state({})),
              "seats": ["bot-a", "bot-b"], "moves": [{"player": 0, "move": "d3"}, {"player": 1, "move": "c5"}]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    result = analyse(str(path), "--depth", "1", "--top", "1", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "game-analysis.json").read_text())["players"] == ["bot-a", "bot-b"]
    (annotated,) = read_sgf((tmp_path / "game-analysis.sgf").read_text())
    assert (annotated.headers["PB"], annotated.headers["PW"]) == ("bot-a", "bot-b")
    legend = re.findall(r"<!-- (.*?) -->", (tmp_path / "game-analysis.svg").read_text())
    assert legend.count("black: bot-a") == 2 and legend.count("white: bot-b") == 2  # both panels
    assert not any(text.startswith("player ") for text in legend)
    assert player_labels(Game("clobber", (), None, ())) == ["white", "black"]
    assert player_labels(Game("isolation", (), None, (), None, ("a", None, "c"))) == ["red: a", "green", "blue: c"]


def test_every_game_names_one_side_per_player() -> None:
    for game in formats():
        sides = find_game(game).side_names
        assert len(sides) == turn_format(game).PLAYERS == len(set(sides))
    assert find_game("othello").side_names == ("black", "white")
    assert find_game("clobber").side_names == ("white", "black")


def test_a_codingame_replay_names_its_players_by_seat() -> None:
    """The site's agents (a codingamer's pseudo, a boss's nickname) and the local runner's
    names reach the seats their agents play, whichever agent moves first."""
    from tests.adapters.test_gamefile import random_replay

    document, _, _ = random_replay("clobber", 5, shift=1)  # agent 1 moves first
    document["agents"] = [{"index": 0, "codingamer": {"pseudo": "Alice"}},
                          {"index": 1, "arenaboss": {"nickname": "Boss"}}]
    assert read_replay(document, "clobber").players == ("Boss", "Alice")
    document.pop("agents")
    document["gameResult"]["agents"] = [{"index": 0, "name": "local bot"}, {"index": 1, "avatar": None}]
    assert read_replay(document, "clobber").players == (None, "local bot")
    document["gameResult"].pop("agents")
    assert read_replay(document, "clobber").players == ()


class _Scripted:
    """An engine that answers the position's search with `lines` and the search of the
    move played alone with `alone`, keeping the limit of each search (`asked`)."""

    def __init__(self, lines: list[Info], alone: Info) -> None:
        self.lines, self.alone = lines, alone
        self.asked: list[tuple[Limit, list[str] | None]] = []

    async def analyse(self, limit, position=None, multipv=1, searchmoves=None, stop=None):
        self.asked.append((limit, searchmoves))
        return [self.alone] if searchmoves else self.lines


def _info(move: str, score: Score, wdl: tuple[int, int, int]) -> Info:
    return Info(depth=4, score=score, wdl=Wdl(*wdl), pv=(move,))


@pytest.mark.parametrize(("best", "played", "loss", "lost", "marked"), [
    # Both won, one by more: no result is given up, whatever the centi-units say.
    ((Score(cp=5413), (1000, 0, 0)), (Score(cp=5208), (1000, 0, 0)), 205, 0.0, None),
    ((Score(mate=3), (1000, 0, 0)), (Score(mate=9), (1000, 0, 0)), 0, 0.0, None),
    ((Score(mate=2), (1000, 0, 0)), (Score(cp=4000), (999, 0, 1)), 6000, 0.001, None),
    # Both lost: nothing to give up either.
    ((Score(mate=-7), (0, 0, 1000)), (Score(mate=-2), (0, 0, 1000)), 0, 0.0, None),
    # A sure win thrown into a likely one, an even game into a worse one.
    ((Score(mate=2), (1000, 0, 0)), (Score(cp=300), (640, 0, 360)), 9700, 0.36, "blunder"),
    ((Score(cp=100), (519, 56, 425)), (Score(cp=-150), (402, 55, 543)), 250, 0.1175, "mistake"),
    ((Score(cp=40), (520, 0, 480)), (Score(cp=-40), (480, 0, 520)), 80, 0.04, None),
])
def test_a_move_is_judged_by_the_expected_points_it_gives_up(best, played, loss, lost, marked) -> None:
    othello = find_game("othello")
    position = othello.initial_state({})
    lines = [_info("d3", *best), _info("c4", Score(cp=-9000), (0, 0, 1000))]
    engine = _Scripted(lines, _info("f5", *played))
    ply = asyncio.run(analyse_ply(engine, othello.format_board(position), position.to_move, "f5",
                                  Limit(movetime=500), 2))
    assert (ply["loss"], ply["points_lost"], ply["mark"]) == (loss, pytest.approx(lost), marked)
    # The move played is searched to the depth of the lines, not to the limit again.
    assert engine.asked == [(Limit(movetime=500), None), (Limit(depth=4), ["f5"])]
    assert ply["depth"] == 4 and [line["depth"] for line in ply["top"]] == [4, 4]
    assert mark(None) is None and mark(MISTAKE_POINTS) == "mistake" and mark(BLUNDER_POINTS) == "blunder"


def test_a_search_that_gave_no_line_is_followed_by_one_to_a_single_ply() -> None:
    """A search whose time ran out before its first iteration (the interpreted stand-in
    of a compiled core still loading, at a few ms a position) gives no line; the
    analysis then asks for one ply, which always completes, instead of failing."""
    othello = find_game("othello")
    position = othello.initial_state({})
    lines = [_info("d3", Score(cp=20), (520, 0, 480)), _info("f5", Score(cp=10), (510, 0, 490))]

    class _LateStart(_Scripted):
        async def analyse(self, limit, position=None, multipv=1, searchmoves=None, stop=None):
            self.asked.append((limit, searchmoves))
            return [] if len(self.asked) == 1 else self.lines

    engine = _LateStart(lines, lines[1])
    ply = asyncio.run(analyse_ply(engine, othello.format_board(position), position.to_move, "f5",
                                  Limit(movetime=5), 2))
    assert engine.asked == [(Limit(movetime=5), None), (Limit(depth=1), None)]
    assert ply["best"] == "d3" and ply["played_score"] == "cp 10"


def test_unproven_scores_are_never_drawn_as_proven_ones(tmp_path: Path) -> None:
    """Large unproven scores keep their value; proven results stand on rows beyond every
    one of them, wins above and losses below."""
    scores = [Score(cp=120), Score(cp=-2500), Score(cp=5208), Score(cp=-5413), Score(mate=3), Score(mate=-2)]
    heights, proven = score_heights(scores)
    assert heights[:4] == [120, -2500, 5208, -5413]
    assert heights[4:] == [proven, -proven] and proven > 1.5 * 5413
    assert score_heights([Score(cp=10), Score(mate=1)]) == ([10, 2000], 2000)
    plies = [{"ply": index + 1, "player": index % 2, "played_score": str(score), "played_wdl": None, "mark": None}
             for index, score in enumerate(scores)]
    written = plot(Game("clobber", (), None, ()), plies, tmp_path / "picture")
    texts = re.findall(r"<!-- (.*?) -->", (tmp_path / "picture.svg").read_text())
    assert {"proven win", "proven loss", "proven result", "3,000", "-3,000"} <= set(texts)
    assert len(written) == 2


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
    assert gone.returncode == 2 and "engine-analyse: the engine at 127.0.0.1:1 cannot be reached: " in gone.stderr
    assert "Traceback" not in gone.stderr
    path.write_bytes(b"setgame clobber\n\xff\n")
    unreadable = analyse(str(path))
    assert unreadable.returncode == 2 and f"engine-analyse: {path}: not UTF-8 text (byte 0xff" in unreadable.stderr
    path.write_text(f"setgame clobber\n{moves[0]}\n")
    other = analyse(str(path), "--game", "othello")
    assert other.returncode == 2 and f"engine-analyse: {path}: a game of clobber, not of othello" in other.stderr


@pytest.mark.parametrize("arguments", [["--depth", "0"], ["--movetime", "0"], ["--nodes", "-1"], ["--top", "0"],
                                       ["--jobs", "0"]])
def test_a_limit_not_a_positive_whole_number_is_refused(tmp_path: Path, arguments: list[str]) -> None:
    """engine-analyse refuses it in its own words, before any engine is started."""
    path = tmp_path / "game.txt"
    path.write_text(f"setgame clobber\n{clobber_game(1, 3)[1][0]}\n")
    result = analyse(str(path), *arguments, "--engine", "no-such-engine")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"engine-analyse: error: argument {arguments[0]}: must be at least 1, got {arguments[1]}" in result.stderr
    assert not (tmp_path / "game-analysis.json").exists()


def test_an_unknown_game_is_a_usage_error_listing_the_games(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text(f"setgame clobber\n{clobber_game(1, 3)[1][0]}\n")
    result = analyse(str(path), "--game", "chess")
    assert result.returncode == 2 and "usage: engine-analyse" in result.stderr
    assert "argument --game:" in result.stderr and ", ".join(formats()) in result.stderr


def test_the_limits_are_explained_with_their_default() -> None:
    shown = " ".join(analyse("--help").stdout.split())
    assert "--depth N search each position N plies deep (default 8, without --movetime or --nodes)" in shown
    assert "--movetime MS search each position MS milliseconds instead" in shown
    assert "--nodes N search each position N nodes instead" in shown


@pytest.mark.parametrize(("command", "words"), [
    ("no-such-engine --uci", "the engine no-such-engine --uci cannot be started: No such file or directory"),
    (f"{sys.executable} -c pass", f"the engine {sys.executable} -c pass ended before it answered uci (exit status 0)"),
    ("cat", "the engine cat did not answer uci with uciok within 1.5 s"),
])
def test_an_engine_that_does_not_answer_the_handshake_is_named(tmp_path: Path, command: str, words: str) -> None:
    """An engine that cannot start, ends at once, or never answers `uci` (cat echoes it)
    is reported in words naming its command, whatever the number of jobs."""
    path = tmp_path / "game.txt"
    path.write_text("setgame clobber\n" + " ".join(clobber_game(3, 3)[1]) + "\n")
    result = analyse(str(path), "--engine", command, "--jobs", "2", "--handshake-timeout", "1.5")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"engine-analyse: {words}" in result.stderr


def test_an_output_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    """A folder that cannot be made is refused before any engine is started; a file
    that cannot be written when the analysis is done is named too."""
    path = tmp_path / "game.txt"
    path.write_text(f"setgame clobber\n{clobber_game(1, 3)[1][0]}\n")
    nowhere = tmp_path / "file" / "x"
    (tmp_path / "file").write_text("a file, not a folder")
    result = analyse(str(path), "--out", str(nowhere), "--engine", "no-such-engine")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"engine-analyse: cannot write in {nowhere.parent}: not a folder" in result.stderr
    (tmp_path / "taken.json").mkdir()
    result = analyse(str(path), "--out", str(tmp_path / "taken"), "--depth", "1", "--jobs", "1")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"engine-analyse: cannot write {tmp_path / 'taken.json'}: Is a directory" in result.stderr
    made = tmp_path / "new" / "folder" / "x"
    assert analyse(str(path), "--out", str(made), "--depth", "1", "--jobs", "1").returncode == 0
    assert json.loads(made.with_suffix(".json").read_text())["plies"][0]["played"] == clobber_game(1, 3)[1][0]


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


@pytest.mark.parametrize("private", [False, True])
def test_workers_are_sessions_of_the_shared_daemon_unless_private(private: bool, tmp_path: Path, runtime: Path) -> None:
    """By default the `--jobs` workers open sessions of the user's shared daemon (one,
    started by the run, which keeps the game loaded after it); `--private` starts none."""
    game = tmp_path / "game.txt"
    game.write_text(clobber_game(4, 5)[0])
    result = analyse(str(game), "--depth", "2", "--jobs", "2", *(["--private"] if private else []))
    assert result.returncode == 0, result.stderr
    assert "cannot be used" not in result.stderr
    found = shared.status(runtime)
    if private:
        assert found == []
    else:
        (daemon,) = found
        assert daemon.current and daemon.figures.games == ("clobber",) and daemon.figures.sessions == 0


@pytest.mark.parametrize("way", ["full", pytest.param("silent", marks=pytest.mark.slow)])
def test_a_shared_daemon_that_cannot_serve_leaves_the_analysis_to_engines_of_its_own(
        way: str, tmp_path: Path, runtime: Path) -> None:
    """A daemon whose budget has no room for the game's tables (`error busy setgame`),
    or (with --runslow) one that never answers, is said on stderr and the workers
    analyse with engines of their own: the report is whole."""
    game = tmp_path / "game.txt"
    game.write_text(clobber_game(4, 5)[0])
    with broken(way, engine_command()):
        result = analyse(str(game), "--depth", "2", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    said = "cannot load clobber (error busy setgame" if way == "full" else "cannot be used (it did not answer"
    assert f"the shared engine daemon {said}" in result.stderr, result.stderr
    report = json.loads((tmp_path / "game-analysis.json").read_text())
    assert len(report["plies"]) == 4 and all(ply["best"] for ply in report["plies"])


def test_the_client_analyses_a_record_as_engine_analyse_does(tmp_path: Path) -> None:
    """A record read from SGF, analysed through the typed client (`analyse_game`), gives
    the plies engine-analyse writes for the same game at the same depth (each position
    searched from an empty table), with each player's summary."""
    import asyncio

    from adapters.analysis.analyse import analyse_game
    from protocol.client import Engine
    from records.sgf import write_sgf
    from records.tree import grown

    text, moves = clobber_game(6, 5)
    (tmp_path / "game.txt").write_text(text)
    assert analyse(str(tmp_path / "game.txt"), "--depth", "2", "--top", "2", "--jobs", "1",
                   "--out", str(tmp_path / "out")).returncode == 0
    written = json.loads((tmp_path / "out.json").read_text())
    from tests.conftest import sorted_tokens

    record = grown("clobber", moves)
    clobber = find_game("clobber")
    other = next(token for token in sorted_tokens(clobber, clobber.initial_state({})) if token != moves[0])
    record.root.add(other, 0)  # a variation beside the main line: not analysed
    record.follow()
    (record,) = read_sgf(write_sgf([record]), "game.sgf")
    assert len(record.root.children) == 2

    async def client() -> dict:
        engine = await Engine.popen(engine_command())
        try:
            seen = []

            async def progress(done: int, total: int) -> None:
                seen.append((done, total))

            report = await analyse_game(engine, record, Limit(depth=2), 2, progress=progress)
            assert seen == [(index, 6) for index in range(6)]
            return report
        finally:
            await engine.close()

    report = asyncio.run(client())
    assert [ply["played"] for ply in report["plies"]] == moves
    keys = ("ply", "board", "played", "best", "top", "depth", "played_score", "loss", "points_lost", "mark")
    assert [{key: ply[key] for key in keys} for ply in report["plies"]] == [
        {key: ply[key] for key in keys} for ply in written["plies"]]
    assert [seat["side"] for seat in report["summary"]] == ["white", "black"]
