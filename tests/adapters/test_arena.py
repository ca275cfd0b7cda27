"""engine-arena: matches of CodinGame bots, the referees' verdicts on bad bots, game
records, results, and the replay page. Games run with their time limits stretched for a
loaded machine (`tests.adapters.deadlines.lenient_time_scale`): a bot is late only when
a test makes it so."""

from __future__ import annotations

import html.parser
import itertools
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.codingame import formats, turn_format
from adapters.arena.referee import GameSpec, plan, play_game
from adapters.view.replay import frames, replay_page
from adapters.arena.stats import Sprt, elo, expected_score, sprt_units, tally, wilson
from games import find_game
from tests.adapters.deadlines import lenient_time_scale
from tests.conftest import DATA, run

ARENA = [sys.executable, "-m", "adapters.arena.main"]
BOTS = f"{sys.executable} -m tests.adapters.cg_bots"
EXAMPLE = f"{sys.executable} -m adapters.bot.bots"


def arena(tmp_path: Path, game: str, *arguments: str) -> tuple[str, list[dict]]:
    """engine-arena's table and records of `game` with `arguments`, at the lenient time
    scale."""
    out = tmp_path / "out"
    result = subprocess.run([*ARENA, game, *arguments, "--time-scale", str(lenient_time_scale(game)),
                             "--out", str(out), "--quiet"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    records = [json.loads(path.read_text()) for path in sorted(out.glob("game-*.json"))]
    assert (out / "results.txt").read_text().strip() == result.stdout.strip()
    return result.stdout, records


def replayed(record: dict):
    """The record's moves played through the rules from its start: the final state."""
    fmt = turn_format(record["game"])
    game = fmt.GAME
    state = game.parse_board(record["start"].split())
    events = {event["at"]: event for event in record["events"] if event["event"] != "eliminated"}
    for index, move in enumerate(record["moves"]):
        if index in events and fmt.PLAYERS == 3:
            state = fmt.leave(state, events[index]["player"])
        assert move["player"] == state.to_move
        state = state.play(game.parse_move(state, move["move"]))
    if len(record["moves"]) in events and fmt.PLAYERS == 3:
        state = fmt.leave(state, events[len(record["moves"])]["player"])
    return state


def test_random_against_greedy_rotates_seats_and_records_every_game(tmp_path: Path) -> None:
    table, records = arena(tmp_path, "clobber", "--bot", "random", "--bot", "greedy", "--games", "4", "--jobs", "2")
    assert len(records) == 4
    assert [record["seats"] for record in records] == [["random", "greedy"], ["greedy", "random"]] * 2
    for record in records:
        state = replayed(record)
        outcome = state.outcome()
        assert outcome is not None and record["reason"] == outcome.reason == "no move"
        assert record["result"]["scores"][outcome.winner] == 1 and record["result"]["ranks"][outcome.winner] == 1
        assert record["final"] == turn_format("clobber").GAME.format_board(state)
        for move in record["moves"]:
            assert 0 <= move["ms"] <= move["limit_ms"]
    lines = table.splitlines()
    assert any(line.startswith("random ") for line in lines) and any(line.startswith("greedy ") for line in lines)
    assert "Elo difference random - greedy:" in table
    wins = sum(1 for record in records for seat, name in enumerate(record["seats"])
               if name == "greedy" and record["result"]["winner"] == seat)
    assert f"greedy                           4 {wins:>5}" in table


def test_knights_rotate_all_six_seat_orders(tmp_path: Path) -> None:
    table, records = arena(tmp_path, "isolation", "--bot", "random", "--bot", "greedy", "--bot", "greedy",
                           "--games", "6", "--jobs", "2", "--seed", "5")
    assert sorted(tuple(record["seats"]) for record in records) == sorted(
        itertools.permutations(["random", "greedy", "greedy#2"]))
    for record in records:
        assert record["seed"] == 5
        assert record["start"] == turn_format("isolation").GAME.format_board(
            turn_format("isolation").GAME.initial_state({"seed": "5"}))
        assert sorted(record["result"]["scores"]) == [0, 1, 2]
        state = replayed(record)
        assert state.outcome() is not None
    assert "avg rank" in table and "1st" in table


def test_a_bot_printing_garbage_loses(tmp_path: Path) -> None:
    _, records = arena(tmp_path, "othello", "--bot", f"bad={BOTS} garbage othello", "--bot", "random", "--games", "2")
    for record in records:
        seat = record["seats"].index("bad")
        assert record["result"]["winner"] == 1 - seat
        assert record["result"]["scores"][seat] == -1
        assert "invalid action" in record["reason"]
        assert record["events"][0]["event"] == "invalid" and record["events"][0]["output"] == "no-such-move"


def test_a_bot_that_does_not_answer_loses_on_time(tmp_path: Path) -> None:
    table, records = arena(tmp_path, "clobber", "--bot", f"mute={BOTS} silent clobber", "--bot", "random",
                           "--games", "2", "--jobs", "2")
    first_turn_ms = turn_format("clobber").FIRST_TURN_MS * lenient_time_scale("clobber")
    for record in records:
        seat = record["seats"].index("mute")
        assert record["result"]["winner"] == 1 - seat and "did not answer in time" in record["reason"]
        event = record["events"][0]
        assert event["event"] == "timeout" and event["limit_ms"] == pytest.approx(first_turn_ms)
        assert event["ms"] >= event["limit_ms"]
    assert "mute: 2 timeout" in table


def test_a_bot_late_after_its_first_turns_loses_on_time() -> None:
    scale = lenient_time_scale("loa")
    spec = GameSpec("loa", 0, 0, (f"{BOTS} late loa {scale}", f"{EXAMPLE} random loa"), ("late", "random"), scale)
    record = run(play_game(spec))
    assert record["result"]["winner"] == 1 and record["events"][0]["event"] == "timeout"
    assert sum(1 for move in record["moves"] if move["player"] == 0) == 2


def test_a_bot_that_exits_loses(tmp_path: Path) -> None:
    spec = GameSpec("clobber", 0, 0, (f"{EXAMPLE} random clobber", f"{BOTS} exit clobber"), ("random", "gone"),
                    lenient_time_scale("clobber"))
    record = run(play_game(spec))
    assert record["result"]["winner"] == 0 and record["events"][0]["event"] == "crashed"


def test_a_knight_that_leaves_stays_on_the_board() -> None:
    scale = lenient_time_scale("isolation")
    spec = GameSpec("isolation", 0, 3, (f"{EXAMPLE} greedy isolation", f"{BOTS} garbage isolation",
                                        f"{EXAMPLE} greedy isolation"), ("a", "bad", "b"), scale)
    record = run(play_game(spec))
    assert record["result"]["scores"][1] == -1 and record["result"]["ranks"][1] == 3
    assert sorted(record["result"]["scores"][::2]) == [0, 1]
    assert "g" in record["final"].split()[0]
    assert record["events"][0] == {"at": 1, "player": 1, "event": "invalid", "output": "no-such-move",
                                   "ms": record["events"][0]["ms"],
                                   "limit_ms": turn_format("isolation").FIRST_TURN_MS * scale}
    assert all(move["player"] != 1 for move in record["moves"])
    assert replayed(record).outcome() is not None


def test_keywords_comments_and_expert_mode_reach_the_referee_as_on_codingame() -> None:
    spec = GameSpec("clobber", 0, 0, (f"{BOTS} keyword clobber", f"{BOTS} comment clobber"), ("kw", "comment"),
                    lenient_time_scale("clobber"))
    record = run(play_game(spec))
    assert record["events"] == [] and record["result"]["winner"] is not None
    assert all(move["output"] == "random" for move in record["moves"] if move["player"] == 0)
    othello = GameSpec("othello", 0, 0, (f"{BOTS} expert othello", f"{BOTS} comment othello"), ("expert", "msg"),
                       lenient_time_scale("othello"))
    record = run(play_game(othello))
    assert record["events"] == [] and record["reason"].startswith("discs")
    assert not any("mismatch" in line or "Traceback" in line for line in record["stderr"][0])
    assert record["moves"][0]["output"].startswith("EXPERT ")


def test_plan_rotates_seat_orders_and_seeds() -> None:
    bots = [("a", "A"), ("b", "B"), ("c", "C")]
    specs = plan("isolation", bots, 13, 100, 2.0)
    assert [spec.seed for spec in specs] == [100] * 6 + [101] * 6 + [102]
    assert len({spec.names for spec in specs[:6]}) == 6 and specs[6].names == specs[0].names
    assert all(spec.time_scale == 2.0 for spec in specs)
    two = plan("clobber", bots[:2], 3, 0, 1.0)
    assert [spec.names for spec in two] == [("a", "b"), ("b", "a"), ("a", "b")]


def test_scores_intervals_and_elo() -> None:
    low, high = wilson(0.5, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    assert wilson(1.0, 10)[1] == pytest.approx(1.0) and wilson(0.0, 10)[0] == pytest.approx(0.0)
    assert elo(0.5) == 0 and round(elo(0.75)) == 191 and math.isinf(elo(1.0))
    record = {"seats": ["x", "y", "z"], "moves": [], "events": [],
              "result": {"ranks": [1, 2, 2], "scores": [2, 0, 0]}}
    results = tally([record], ["x", "y", "z"])
    assert results["x"].points == [1.0] and results["y"].points == [0.25] and results["y"].places == [0, 1, 0]


class _Scripts(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[tuple[dict, str]] = []
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self._open = dict(attrs)
            self.scripts.append((self._open, ""))

    def handle_data(self, data):
        if self._open is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._open = None


def sample_record(game: str) -> dict:
    players = turn_format(game).PLAYERS
    names = ("greedy", "random", "random#2")[:players]
    commands = tuple(f"{EXAMPLE} {name.split('#')[0]} {game}" for name in names)
    return run(play_game(GameSpec(game, 0, 2, commands, names, lenient_time_scale(game))))


@pytest.mark.parametrize("game", formats())
def test_the_replay_page_embeds_every_position_and_draws_it(game: str, tmp_path: Path) -> None:
    record = sample_record(game)
    record["seats"][0] = "</script><b>x"  # must not break out of the page
    page = replay_page(record)
    parser = _Scripts()
    parser.feed(page)
    (data_attrs, data), (code_attrs, code) = parser.scripts
    assert data_attrs == {"id": "record", "type": "application/json"} and code_attrs == {}
    embedded = json.loads(data)
    assert embedded["frames"] == frames(record)
    assert len(embedded["frames"]) == len(record["moves"]) + 1
    names = turn_format(game).GAME.player_names
    final = "".join(record["final"].split()[0].split("/"))
    assert [cell[3] for cell in embedded["frames"][-1]["view"]["cells"]] == [
        names.index(char) if char in names else -1 for char in final]
    assert code.count("http") == 1 and "http://www.w3.org/2000/svg" in code  # a namespace, no fetch
    assert "src=" not in page and "<link" not in page and "@import" not in page
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the page's script was not run")
    path = tmp_path / "page.html"
    path.write_text(page)
    result = subprocess.run([node, str(DATA / "replay_check.js"), str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    checked = json.loads(result.stdout)
    sides = find_game(game).side_names
    for index, (step, frame) in enumerate(zip(checked["steps"], embedded["frames"])):
        assert step["svg"]
        assert step["pieces"] == sum(cell[3] >= 0 for cell in frame["view"]["cells"])
        assert step["marks"] == len(frame["last"]) == (0 if frame["move"] in (None, "pass") or frame["auto"]
                                                       else len(turn_format(game).BOARD_STYLE.marks(frame["move"])))
        assert (step["marks"] > 0) == (frame["move"] not in (None, "pass") and not frame["auto"])
        if index:  # who played, in words: the bot and its side
            who = f"{record['seats'][frame['player']]} ({sides[frame['player']]})"
            action = "passes (forced)" if frame["auto"] else f"plays {frame['move']}"
            assert step["info"].startswith(f"step {index} / {len(record['moves'])}: {who} {action}")
            assert "seat" not in step["info"]
    assert checked["atFirst"].startswith("step 0 /") and checked["afterRight"].startswith("step 1 /")
    assert checked["atEnd"].startswith(f"step {len(record['moves'])} /")
    assert checked["result"] == embedded["result"]
    winner = record["result"]["winner"]
    if winner is not None:
        assert embedded["result"].startswith(f"{record['seats'][winner]} ({sides[winner]}) wins")


def test_the_replay_page_says_in_words_who_left_a_game() -> None:
    record = sample_record("othello")
    record["events"] = [{"at": len(record["moves"]), "player": 1, "event": "timeout"}]
    assert frames(record)[-1]["note"] == f"{record['seats'][1]} (white) did not answer in time"


def test_openings_file_plays_each_opening_with_both_seat_orders(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("b1b2 a1a2\n-\n")
    table, records = arena(tmp_path, "clobber", "--bot", "random", "--bot", "greedy",
                           "--openings", str(openings), "--jobs", "2")
    assert [(record["seats"], [move["move"] for move in record["moves"] if move.get("opening")])
            for record in records] == [(["random", "greedy"], ["b1b2", "a1a2"]),
                                       (["greedy", "random"], ["b1b2", "a1a2"]),
                                       (["random", "greedy"], []), (["greedy", "random"], [])]
    for record in records[:2]:
        assert record["moves"][2]["player"] == 0 and "ms" in record["moves"][2]
        replayed(record)
        assert "opening move" in replay_page(record)
    bad = tmp_path / "bad.txt"
    bad.write_text("b1b2 b1b2\n")
    result = subprocess.run([*ARENA, "clobber", "--openings", str(bad), "--out", str(tmp_path / "x")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "bad.txt, line 1: move 2" in result.stderr


def test_sprt_stops_when_decided(tmp_path: Path) -> None:
    table, records = arena(tmp_path, "clobber", "--bot", "greedy", "--bot", "random",
                           "--sprt", "elo0=0", "elo1=150", "--games", "400", "--jobs", "2")
    assert 4 <= len(records) < 400
    assert "H1 accepted: greedy is at least 150 Elo stronger" in table
    llr = float(table.split("LLR ")[1].split(",")[0])
    assert llr >= 2.94


def test_sprt_arithmetic() -> None:
    sprt = Sprt.parse(["elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"])
    lower, upper = sprt.bounds
    assert lower == pytest.approx(-2.944, abs=1e-3) and upper == pytest.approx(2.944, abs=1e-3)
    assert expected_score(0) == 0.5 and expected_score(400) == pytest.approx(10 / 11)
    # Even results weigh against H1 (elo1 > 0); a strong edge for it, more with more units.
    assert sprt.llr([0.5] * 100) < 0 < sprt.llr([0.75, 0.5] * 50) < sprt.llr([0.75, 0.5] * 100)
    assert sprt.decision(3.0) == "H1" and sprt.decision(-3.0) == "H0" and sprt.decision(0.0) is None
    # A score that matches elo1 exactly drifts up; one that matches elo0 drifts down.
    high = [expected_score(10) + 0.2, expected_score(10) - 0.2] * 200
    assert sprt.llr(high) > 0 > sprt.llr([0.7, 0.3] * 200)
    for words in (["elo1=abc"], ["gamma=1"], ["elo0=5", "elo1=5"], ["alpha=0"]):
        with pytest.raises(ValueError):
            Sprt.parse(words)
    records = [{"index": index, "seats": ["a", "b"] if index % 2 == 0 else ["b", "a"],
                "result": {"ranks": [1, 2], "scores": [1, 0]}, "moves": [], "events": []}
               for index in (0, 1, 2, 5)]
    # Pairs (0, 1) and (2, 3): only the first is complete; a wins one and loses one.
    assert sprt_units(records, "a", 2) == [0.5]


def test_the_replay_page_shows_an_engine_analyse_report(tmp_path: Path) -> None:
    """A real game analysed by engine-analyse, then replayed: the best move drawn, the
    top moves in the text, the score graph with the step shown; a report of another game
    is refused."""
    record = sample_record("clobber")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    analysed = subprocess.run([sys.executable, "-m", "adapters.analysis.main", str(path), "--depth", "1",
                               "--top", "2", "--quiet"], capture_output=True, text=True, timeout=600)
    assert analysed.returncode == 0, analysed.stderr
    analysis = json.loads((tmp_path / "game-analysis.json").read_text())
    result = subprocess.run([*ARENA, "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "game.html").read_text()
    embedded = json.loads(page.split('<script id="record" type="application/json">')[1].split("</script>")[0])
    # Each step shows the move it played with the engine's view of that move.
    assert [(frame["move"], frame["engine"]["played"], frame["engine"]["best"]) for frame in embedded["frames"][1:]] == [
        (ply["played"], ply["played"], ply["best"]) for ply in analysis["plies"]]
    assert "engine" not in embedded["frames"][0]
    node = shutil.which("node")
    if node is not None:
        checked = json.loads(subprocess.run([node, str(DATA / "replay_check.js"), str(tmp_path / "game.html")],
                                            capture_output=True, text=True, timeout=60, check=True).stdout)
        assert checked["steps"][0]["best"] == 0 and checked["steps"][0]["engine"] == ""
        for step, ply in zip(checked["steps"][1:], analysis["plies"]):
            who = f"{record['seats'][ply['player']]} ({find_game('clobber').side_names[ply['player']]})"
            assert f": {who} plays {ply['played']}" in step["info"]
            assert step["best"] == 2 and step["engine"].startswith(
                f"engine, before {ply['played']}: best {ply['best']}; top ")
            wdl = ply["played_wdl"]
            assert f"; {ply['played']} by {who} scored {ply['played_score']}" in step["engine"]
            assert f" (expected points {(wdl[0] + wdl[1] / 2) / 1000:.2f})" in step["engine"]
            if ply["points_lost"]:
                assert f", giving up {ply['points_lost']:.2f} expected points ({ply['loss']} centi-units)" in step[
                    "engine"]
            assert step["engine"].endswith(f" \u2014 {ply['mark']}") == bool(ply["mark"])
            assert step["graphLines"] == 2 and step["graphNow"] == 1
    other = dict(analysis, plies=analysis["plies"][1:])
    with pytest.raises(ValueError, match="not of this game"):
        replay_page(record, other)


def test_the_replay_graph_draws_proven_results_beyond_every_score(tmp_path: Path) -> None:
    """Unproven scores, however large, are not drawn as proven results: a proven win
    stands above every unproven score, a proven loss below, each marked."""
    import re

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the page's script was not run")
    record = sample_record("clobber")
    scores = ["cp 5208", "cp -5413", "mate 3", "mate -2"]
    plies = [{"ply": index + 1, "player": move["player"], "played": move["move"], "best": move["move"],
              "top": [{"move": move["move"], "score": score}], "played_score": score, "played_wdl": None,
              "loss": 0, "points_lost": None, "mark": None}
             for index, (move, score) in enumerate(zip(record["moves"], [*scores, *["cp 100"] * 200]))]
    path = tmp_path / "page.html"
    path.write_text(replay_page(record, {"game": "clobber", "plies": plies}))
    checked = json.loads(subprocess.run([node, str(DATA / "replay_check.js"), str(path)],
                                        capture_output=True, text=True, timeout=60, check=True).stdout)
    graph = checked["steps"][0]["graph"]
    lines = re.findall(r'<polyline class="score" points="([^"]*)"', graph)
    heights = [float(point.split(",")[1]) for line in lines for point in line.split()]
    proven = [float(y) + 4 for y in re.findall(r'<rect class="proven" x="[^"]*" y="([^"]*)"', graph)]
    assert len(heights) == len(plies) and len(proven) == 2
    win, loss = proven  # plies 3 and 4; the picture's y grows downwards
    unproven = [height for height in heights if height not in proven]
    assert len(unproven) == len(plies) - 2
    assert win < min(unproven) - 5 and loss > max(unproven) + 5


def test_the_replay_page_with_its_analysis_in_headless_chromium(tmp_path: Path) -> None:
    """The page as a browser runs it: Chromium's DOM after the script, at a step, has the
    best move and the last move on the board, the engine's text and the score graph; and
    a screenshot is taken (kept beside the page)."""
    import re

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    record = sample_record("clobber")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    subprocess.run([sys.executable, "-m", "adapters.analysis.main", str(path), "--depth", "1", "--top", "2",
                    "--quiet"], check=True, capture_output=True, timeout=600)
    subprocess.run([*ARENA, "replay", str(path)], check=True, capture_output=True, timeout=60)
    analysis = json.loads((tmp_path / "game-analysis.json").read_text())
    url = f"file://{tmp_path / 'game.html'}#3"
    browser = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    dom = subprocess.run([*browser, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    board = re.search(r'<div id="board">(.*?)</div>', dom, re.S).group(1)
    graph = re.search(r'<div id="graph">(.*?)</div>', dom, re.S).group(1)
    engine = re.search(r'<div id="engine">(.*?)</div>', dom, re.S).group(1)
    assert board.count('class="best"') == 2 and board.count('class="mark"') == 2
    assert graph.count('class="score"') == 2 and graph.count('class="now"') == 1
    ply = analysis["plies"][2]  # step 3 shows the third move, with the engine's view of it
    assert re.search(r'<div id="info">step 3 / \d+: [^<]* plays ' + ply["played"], dom)
    assert engine.startswith(f"engine, before {ply['played']}: best {ply['best']}; top ")
    shot = tmp_path / "game.png"
    subprocess.run([*browser, f"--screenshot={shot}", "--window-size=700,1000", url], capture_output=True,
                   timeout=120)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_a_match_of_the_engine_bot_prepares_the_shared_daemon(runtime: Path) -> None:
    """Before the first game's clock runs, the arena starts the shared daemon of an
    `engine` bot and loads the game in it; a match without one starts none."""
    from adapters.arena.main import prepare_shared_daemon, resolve_bots
    from protocol import shared

    prepare_shared_daemon("clobber", resolve_bots(["greedy", "engine-cg clobber --private"], "clobber", 2))
    assert shared.status(runtime) == []
    prepare_shared_daemon("clobber", resolve_bots(["engine", "greedy"], "clobber", 2))
    (daemon,) = shared.status(runtime)
    assert daemon.current and daemon.figures.games == ("clobber",) and daemon.figures.sessions == 0
