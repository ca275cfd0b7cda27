"""The web GUI in a real headless Chromium (Debian's, driven by Playwright), against a
real `engine-gui` process with its in-process engine: for every game, start a game,
click a legal move and see the engine answer, see an illegal click refused, run the
analysis and see its MultiPV marks, load a record, step through it and analyse it.

Screenshots of each step go to $ENGINE_GUI_SCREENSHOTS (default: the test's temporary
folder). The tests skip, saying why, where no browser or Playwright is installed
(scripts/test installs Debian's chromium where it may)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.analysis.gamefile import LEAVE
from games import find_game
from tests.conftest import EXPERT_GAMES, random_game, sorted_tokens
from tools.gui_tour import click_cells, right_drag, tour

GAMES = ("clobber", "othello", "loa", "isolation", "abalone")
#: How long the page may take to show what the engine answers (s): the first request
#: of a game loads its compiled code.
WAIT_S = 60


def browser_path() -> str | None:
    return os.environ.get("ENGINE_TEST_BROWSER") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory):
    """The address of a running `engine-gui --port 0`, its user data folder a temporary
    one. Its log goes to a file (a pipe nobody reads would stop the server once full)
    and is printed when the module ends."""
    folder = tmp_path_factory.mktemp("gui")
    log = folder / "stderr.log"
    with log.open("w") as stderr:
        # Its user data (the studies, the explorer's cache) in a folder of its own.
        process = subprocess.Popen([sys.executable, "-m", "adapters.gui.main", "--port", "0", "--log-level", "info",
                                    *(["--expert-games", str(EXPERT_GAMES)] if EXPERT_GAMES.is_dir() else [])],
                                   stdout=subprocess.PIPE, stderr=stderr, text=True,
                                   env={**os.environ, "XDG_DATA_HOME": str(folder / "data")})
    line = process.stdout.readline()
    match = re.search(r"http://\S+", line)
    if match is None:
        process.kill()
        pytest.fail(f"engine-gui printed no address: {line!r} {log.read_text()}")
    yield match.group(0)
    process.terminate()
    process.wait(10)
    print(f"engine-gui's log:\n{log.read_text()}")


@pytest.fixture(scope="module")
def browser():
    executable = browser_path()
    if executable is None:
        pytest.skip("no chromium installed (apt-get install chromium, or set ENGINE_TEST_BROWSER):"
                    " the browser tests did not run")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright for Python is not installed (pip install playwright): the browser tests did not run")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield instance
        instance.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ENGINE_GUI_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


#: The page's state a failed wait reports, beside the last messages it exchanged.
PAGE_STATE = """() => { var S = window.gui && window.gui.state; return S ? JSON.stringify({
    seq: S.seq, trial: S.trial && S.trial.seq, mode: S.mode, thinking: S.thinking, analysing: S.analysing,
    socket: S.socket && S.socket.readyState, message: document.getElementById('message').textContent,
    connection: document.getElementById('connection').textContent,
    position: S.position && [S.position.seq, S.position.board_text]}) : 'no page state'; }"""
#: How many of the last WebSocket frames a failed wait reports.
FRAMES_KEPT = 12


def explain_failed_waits(page) -> None:
    """Make `page.wait_for_function` wait WAIT_S by default and, where it waits in vain,
    fail saying what the page held and the last frames it sent and received."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    frames: list[str] = []

    def keep(direction: str, payload) -> None:
        frames.append(f"{direction} {str(payload)[:300]}")
        del frames[:-FRAMES_KEPT]

    page.on("websocket", lambda socket: (socket.on("framesent", lambda payload: keep(">", payload)),
                                         socket.on("framereceived", lambda payload: keep("<", payload))))
    wait = page.wait_for_function

    def explained(expression: str, **options):
        options.setdefault("timeout", WAIT_S * 1000)
        try:
            return wait(expression, **options)
        except PlaywrightTimeout:
            state = page.evaluate(PAGE_STATE)
            raise AssertionError(f"waited {options['timeout'] / 1000:.0f} s in vain for {expression}\n"
                                 f"the page: {state}\nits last frames:\n" + "\n".join(frames)) from None

    page.wait_for_function = explained


def open_page(browser, gui: str, game: str, width: int = 1100, height: int = 820, prepare=None):
    """A new page of `gui` showing `game`; `prepare(page)`, where given, runs before the
    page loads (to route its WebSocket, say)."""
    # The page's Content-Security-Policy forbids `eval`, which Playwright's waits use.
    page = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    explain_failed_waits(page)
    if prepare is not None:
        prepare(page)
    page.goto(gui)
    page.wait_for_selector("#game option", state="attached", timeout=WAIT_S * 1000)
    page.select_option("#game", game)
    page.wait_for_function(f"window.gui.state.position && window.gui.state.position.game === '{game}'",
                           timeout=WAIT_S * 1000)
    page.errors = errors
    return page


def fill_board_text(page, text: str) -> None:
    """Type `text` into the position editor once the page has the answer to its latest
    request: a position still on its way would write its own board text there."""
    page.wait_for_function("!window.gui.state.trial && window.gui.state.position"
                           " && window.gui.state.position.seq === window.gui.state.seq")
    page.fill("#board-text", text)


def load_moves(page, tmp_path: Path, game: str, moves: list[str]) -> None:
    """Load `moves` of `game` as a record file, in the replay mode."""
    record = tmp_path / f"{game}.txt"
    record.write_text(f"setgame {game}\n{' '.join(moves)}\n")
    page.click("button[data-mode='replay']")
    page.set_input_files("#record-file", str(record))
    page.wait_for_function(f"window.gui.state.line.length === {len(moves)}", timeout=WAIT_S * 1000)


def branch_at_ply_three(page, moves: list[str]) -> list[str]:
    """Go to ply 2 of the game `moves` shown and click another third move than the
    game's: the branch's line."""
    page.click("#moves button.move[data-ply='2']")
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    other = next(entry for entry in state(page, "position.legal") if entry["move"] != moves[2])
    click_cells(page, other["paths"][0])
    page.wait_for_function("window.gui.state.position.moves.length === 3", timeout=WAIT_S * 1000)
    return moves[:2] + [other["move"]]


def analyse_game(page) -> None:
    """Analyse the whole game shown, 30 ms a position, and wait for its graph."""
    page.fill("#replay-movetime", "30")
    page.click("#analyse-game")
    page.wait_for_selector("#graph svg.graph", timeout=WAIT_S * 1000)


def settle_lines(page) -> None:
    """Wait until a stopped analysis has sent its last set of lines (two or more)."""
    page.wait_for_function("!window.gui.state.analysing")
    page.wait_for_timeout(500)
    page.wait_for_function("Object.keys(window.gui.state.lines).length >= 2", timeout=WAIT_S * 1000)


def state(page, expression: str):
    return page.evaluate(f"window.gui.state.{expression}")


def readable(game: str, token: str) -> str:
    """A move as the page writes it: Abalone's x1,y1,x2,y2,d as its ends and an arrow."""
    if game != "abalone" or token == LEAVE:
        return token
    x1, y1, x2, y2, direction = token.split(",")
    ends = f"{x1},{y1}" if (x1, y1) == (x2, y2) else f"{x1},{y1}\u2013{x2},{y2}"
    return f"{ends} {'→↗↖←↙↘'[int(direction)]}"


def bounds(page, selector: str) -> dict:
    """Where an element is on the page, measured in one step (the board is drawn anew
    as the analysis's lines come)."""
    return page.evaluate("selector => { const r = document.querySelector(selector).getBoundingClientRect();"
                         " return {x: r.x, y: r.y, width: r.width, height: r.height}; }", selector)


def rgb(colour: str) -> str:
    """A colour written #rgb or #rrggbb as a browser's computed style writes it."""
    hex_ = colour.lstrip("#")
    if len(hex_) == 3:
        hex_ = "".join(2 * c for c in hex_)
    return "rgb({}, {}, {})".format(*(int(hex_[i:i + 2], 16) for i in (0, 2, 4)))


def shares(page, bar: str) -> list[str]:
    """The colours of an eval bar's segments, the first player's first."""
    return page.eval_on_selector_all(f"{bar} .share", "parts => parts.map(p => getComputedStyle(p).backgroundColor)")


def isolation_fields(moves: list[str], ply: int) -> str:
    """The board text's fields of Knight Isolation after `ply` of `moves`."""
    rules = find_game("isolation")
    position = rules.initial_state({})
    for move in moves[:ply]:
        position = position.play(rules.parse_move(position, move))
    return " ".join(rules.format_board(position).split()[2:])


@pytest.mark.parametrize("game", GAMES)
def test_play_analyse_and_replay_in_the_browser(browser, gui: str, game: str, shots: Path, tmp_path: Path) -> None:
    page = open_page(browser, gui, game)
    page.fill("#movetime", "100")
    players = len(find_game(game).side_names)

    # Play: a new game with the human on the side to move at the start.
    first = state(page, "position.to_move")
    page.select_option("#seat", str(first))
    page.click("#new-game")
    page.wait_for_function(f"window.gui.state.position.to_move === {first} && !window.gui.state.thinking",
                           timeout=WAIT_S * 1000)
    legal = state(page, "position.legal")
    # The status says the counts in words, not as the board text's fields.
    status = page.inner_text("#status")
    assert "=" not in status, status
    if game != "isolation":
        assert f"{state(page, 'position.view.pieces')}: " in status, status
    page.screenshot(path=str(shots / f"{game}-1-start.png"))

    # An illegal click: a cell no legal move starts from is refused in words, and the
    # position stays.
    starts = {entry["paths"][0][0] for entry in legal if entry["paths"] and entry["paths"][0]}
    cells = [cell[0] for cell in state(page, "position.view.cells")]
    refused = next(cell for cell in cells if cell not in starts)
    page.click(f".cell[data-cell='{refused}']", force=True)
    assert "not a legal move" in page.inner_text("#message")
    assert state(page, "line.length") == 0

    # A legal move: the engine answers on the board within its time.
    move = legal[0]
    click_cells(page, move["paths"][0])
    page.wait_for_function(f"window.gui.state.line.length >= {players} && !window.gui.state.thinking"
                           f" && window.gui.state.position.moves.length === window.gui.state.line.length",
                           timeout=WAIT_S * 1000)
    line = state(page, "line")
    assert line[0] == move["move"]
    assert state(page, "position.to_move") == first or state(page, "position.result") is not None
    page.screenshot(path=str(shots / f"{game}-2-engine-answered.png"))

    # Undo takes back the engine's replies and the move.
    page.click("#undo")
    page.wait_for_function("window.gui.state.position.moves.length === 0", timeout=WAIT_S * 1000)

    # Analyse: MultiPV marks on the board, lines in the table.
    page.click("button[data-mode='analyse']")
    page.wait_for_function("document.querySelectorAll('#board g.pv-mark').length >= 2", timeout=WAIT_S * 1000)
    page.wait_for_function("document.querySelectorAll('#lines tr.pv').length >= 2", timeout=WAIT_S * 1000)
    assert "depth" in page.inner_text("#search")
    assert page.inner_text("#chances") == ("1st / 2nd / 3rd" if players == 3 else "win / draw / loss")
    page.screenshot(path=str(shots / f"{game}-3-analysis.png"))
    page.keyboard.press("Space")  # stops it
    page.wait_for_function("!window.gui.state.analysing")

    # Replay: load a move list, step through it with the keys, analyse every ply. In a
    # game of more players, a player leaves it after three moves.
    moves = random_game(game, 6, leave_at=3 if players > 2 else None)
    record = tmp_path / f"{game}.txt"
    record.write_text(f"setgame {game}\n{' '.join(moves)}\n")
    page.click("button[data-mode='replay']")
    page.set_input_files("#record-file", str(record))
    page.wait_for_function(f"window.gui.state.line.length === {len(moves)}", timeout=WAIT_S * 1000)
    for ply in range(1, 4):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"window.gui.state.position.moves.length === {ply}", timeout=WAIT_S * 1000)
    assert page.inner_text("#ply") == f"ply 3 / {len(moves)}"
    assert state(page, "position.moves") == moves[:3]
    page.keyboard.press("End")
    page.wait_for_function(f"window.gui.state.position.moves.length === {len(moves)}", timeout=WAIT_S * 1000)
    analyse_game(page)
    assert page.evaluate("window.gui.state.plies.length") == len(moves) + 1
    # Each player's line and legend take the colour of the player's pieces (a light one
    # grey); a game of two has one line, the first side's.
    pieces = [fill for fill, _ in state(page, "position.view.colours")]
    expected = ["#9e9e9e" if fill == "#f4f4f4" else fill for fill in pieces]
    legend = page.eval_on_selector_all("#graph svg.graph line[y1='6']", "ls => ls.map(l => l.getAttribute('stroke'))")
    assert legend == (expected if players == 3 else expected[:1])  # in a game of two, the first side's view
    page.click("#graph rect.step[data-step='2']")
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    assert page.inner_text("#ply-analysis").startswith(f"before {readable(game, moves[2])}: best ")
    assert page.get_attribute("#moves button.move[data-ply='3']", "data-move") == moves[2]
    assert page.inner_text("#moves button.move[data-ply='3']").startswith(readable(game, moves[2]))
    if LEAVE in moves:  # a player leaving has no analysis
        page.keyboard.press("ArrowRight")
        page.wait_for_function("window.gui.state.position.moves.length === 3", timeout=WAIT_S * 1000)
        assert page.inner_text("#ply-analysis") == ""
    page.screenshot(path=str(shots / f"{game}-4-replay.png"))
    assert not page.errors
    page.close()


@pytest.mark.parametrize("ponder", [True, False], ids=["pondering", "not pondering"])
def test_a_game_the_users_move_ends_leaves_the_page_ready(browser, gui: str, ponder: bool) -> None:
    # Black (the engine) has one capture, b1c1; white's one reply, d1c1, leaves black
    # without a piece: the engine ponders on it, and the user plays it.
    page = open_page(browser, gui, "clobber")
    page.fill("#movetime", "100")
    page.set_checked("#ponder", ponder)
    page.select_option("#seat", "0")
    page.click("#position-editor summary")
    fill_board_text(page, "/".join(["." * 8] * 7 + [".bww...."]) + " b")
    page.click("#set-board")
    page.wait_for_function("window.gui.state.line.length === 1 && !window.gui.state.thinking"
                           " && window.gui.state.position.moves.length === 1", timeout=WAIT_S * 1000)
    assert state(page, "line") == ["b1c1"] and state(page, "position.to_move") == 0
    click_cells(page, state(page, "position.legal")[0]["paths"][0])
    page.wait_for_function("window.gui.state.position.result !== null && !window.gui.state.thinking",
                           timeout=WAIT_S * 1000)
    assert state(page, "line") == ["b1c1", "d1c1"]
    assert page.inner_text("#status").startswith("game over: white wins")
    # A new game starts at once.
    page.click("#new-game")
    page.wait_for_function("window.gui.state.position.moves.length === 0 && window.gui.state.position.result === null"
                           " && !window.gui.state.thinking", timeout=WAIT_S * 1000)
    assert not page.errors
    page.close()


def test_errors_are_shown_in_words_and_a_lost_connection_comes_back(browser, gui: str, shots: Path) -> None:
    page = open_page(browser, gui, "othello")
    page.click("button[data-mode='analyse']")
    page.click("#analyse-toggle")  # stop: analysis starts with the mode
    page.click("#position-editor summary")
    fill_board_text(page, "......../......../ 0")
    page.click("#set-board")
    page.wait_for_function("document.getElementById('message').textContent.length > 0", timeout=WAIT_S * 1000)
    assert page.inner_text("#message").startswith("The board text is not valid: expected 8 rows")
    shown = "......../......../......../...10.../...01.../......../......../........ 0"
    fill_board_text(page, shown.replace(" 0", " 1"))
    page.click("#set-board")
    page.wait_for_function("window.gui.state.position.to_move === 1", timeout=WAIT_S * 1000)
    # The server forgets the tab: the page reconnects and shows the same position.
    page.evaluate("window.gui.state.socket.close()")
    page.wait_for_function("document.getElementById('connection').textContent.startsWith('connection lost')")
    page.wait_for_function("window.gui.state.socket && window.gui.state.socket.readyState === 1",
                           timeout=WAIT_S * 1000)
    page.wait_for_function("window.gui.state.position.board_text.endsWith(' 1')", timeout=WAIT_S * 1000)
    page.screenshot(path=str(shots / "reconnected.png"))
    assert not page.errors
    page.close()


def test_the_page_fits_a_phone(browser, gui: str, shots: Path) -> None:
    page = open_page(browser, gui, "abalone", width=390, height=844)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide in a 390 px window"
    board = page.query_selector("#board svg").bounding_box()
    assert board["width"] <= 390 and board["width"] >= 300
    page.screenshot(path=str(shots / "phone.png"), full_page=True)
    page.close()


def test_a_move_half_clicked_outlives_an_answer_showing_the_same_board(browser, gui: str) -> None:
    """A piece selected stays selected when the page is answered with the same board (here
    the answer to the analysis mode chosen after the click): the next click completes the
    move instead of being refused as a move of its own."""
    page = open_page(browser, gui, "clobber")
    page.wait_for_function("window.gui.state.position.seq === window.gui.state.seq", timeout=WAIT_S * 1000)
    first, second = state(page, "position.legal")[0]["paths"][0]
    click_cells(page, [first])
    page.wait_for_function(f"window.gui.state.selection.join() === {first!r}", timeout=WAIT_S * 1000)
    asked = state(page, "seq")
    page.click("button[data-mode='analyse']")
    page.wait_for_function(f"window.gui.state.position.seq > {asked}"
                           " && window.gui.state.position.seq === window.gui.state.seq", timeout=WAIT_S * 1000)
    assert state(page, "selection") == [first]
    click_cells(page, [second])
    page.wait_for_function("window.gui.state.position.moves.length === 1", timeout=WAIT_S * 1000)
    assert state(page, "position.moves") == [first + second]
    assert not page.errors
    page.close()


def test_a_refused_board_text_keeps_the_game_and_its_analysis(browser, gui: str, shots: Path) -> None:
    page = open_page(browser, gui, "clobber")
    page.click("button[data-mode='analyse']")
    for ply in (1, 2):  # two moves of the analysed game, clicked on the board
        page.wait_for_function(f"window.gui.state.position.moves.length === {ply - 1}", timeout=WAIT_S * 1000)
        click_cells(page, state(page, "position.legal")[0]["paths"][0])
    page.wait_for_function("window.gui.state.position.moves.length === 2 && window.gui.state.search",
                           timeout=WAIT_S * 1000)
    line, shown = state(page, "line"), state(page, "position.board_text")
    page.click("#position-editor summary")
    fill_board_text(page, "nonsense w")
    page.click("#set-board")
    page.wait_for_function("document.getElementById('message').className === 'error'", timeout=WAIT_S * 1000)
    assert page.inner_text("#message").startswith("The board text is not valid")
    # The game, its position and its analysis go on as they were.
    page.wait_for_function("window.gui.state.search && window.gui.state.position.moves.length === 2",
                           timeout=WAIT_S * 1000)
    assert state(page, "line") == line and state(page, "start") is None
    assert page.input_value("#board-text") == shown
    page.screenshot(path=str(shots / "refused-board.png"))
    # A reload shows the same game.
    page.reload()
    page.wait_for_function("window.gui.state.position && window.gui.state.position.moves.length === 2",
                           timeout=WAIT_S * 1000)
    assert state(page, "line") == line
    # A saved game the engine refuses (stored by an older page, say) falls back to the
    # game's start, saying why.
    page.evaluate("sessionStorage.setItem('engine-gui', JSON.stringify({game: 'clobber', start: 'nonsense w',"
                  " line: [], ply: 0, mode: 'play', seat: 0}))")
    page.reload()
    page.wait_for_function("window.gui.state.position && window.gui.state.start === null", timeout=WAIT_S * 1000)
    assert "back to the start" in page.inner_text("#message")
    assert not page.errors
    page.close()


def test_no_control_keeps_the_keys_from_the_board(browser, gui: str, tmp_path: Path) -> None:
    """After a game, a side or a record file is chosen, the arrow keys step through the
    game: none of those controls keeps the focus (a focused game list took Right and
    switched games)."""
    page = open_page(browser, gui, "othello")
    page.click("button[data-mode='replay']")
    moves = random_game("clobber", 6, seed=4)
    record = tmp_path / "clobber.txt"
    record.write_text(f"setgame clobber\n{' '.join(moves)}\n")
    page.focus("#record-file")  # as a click on it leaves it
    page.set_input_files("#record-file", str(record))
    page.wait_for_function(f"window.gui.state.line.length === {len(moves)} && window.gui.state.position.game"
                           " === 'clobber' && !document.getElementById('redo').disabled", timeout=WAIT_S * 1000)
    page.keyboard.press("ArrowRight")
    page.wait_for_function("window.gui.state.position.moves.length === 1", timeout=WAIT_S * 1000)
    # Another game: the keys still go to the board, not to the list.
    page.focus("#game")
    page.select_option("#game", "loa")
    page.wait_for_function("window.gui.state.position.game === 'loa'", timeout=WAIT_S * 1000)
    for key in ("ArrowRight", "ArrowDown", "ArrowLeft"):
        page.keyboard.press(key)
    assert state(page, "game") == "loa" and page.input_value("#game") == "loa"
    assert page.evaluate("document.activeElement.tagName") not in ("SELECT", "INPUT")
    assert not page.errors
    page.close()


def test_a_list_clicked_and_closed_leaves_the_keys_to_the_board(browser, gui: str, tmp_path: Path) -> None:
    """A list opened by a click and closed with Esc takes none of the board's keys: Right
    steps the game instead of choosing the next game, Left takes back a move instead of
    choosing another side. A list reached with Tab keeps its own keys (the arrows choose
    in it) until Esc leaves it."""
    page = open_page(browser, gui, "othello")
    moves = random_game("othello", 6, seed=4)
    load_moves(page, tmp_path, "othello", moves)
    page.click("#moves button.move[data-ply='2']")
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    for key, ply in (("ArrowRight", 3), ("ArrowLeft", 2), ("End", len(moves)), ("Home", 0)):
        open_list(page, "#game")
        page.keyboard.press("Escape")
        page.keyboard.press(key)
        page.wait_for_function(f"window.gui.state.position.moves.length === {ply}", timeout=WAIT_S * 1000)
        assert state(page, "game") == "othello" and page.input_value("#game") == "othello", key

    # In play, the side list clicked and closed: Left takes the moves back.
    first = state(page, "position.to_move")
    page.click("button[data-mode='play']")
    page.fill("#movetime", "50")
    page.select_option("#seat", str(first))
    page.click("#new-game")
    page.wait_for_function("window.gui.state.position.moves.length === 0 && !window.gui.state.thinking",
                           timeout=WAIT_S * 1000)
    click_cells(page, state(page, "position.legal")[0]["paths"][0])
    page.wait_for_function("window.gui.state.position.moves.length === 2 && !window.gui.state.thinking",
                           timeout=WAIT_S * 1000)
    open_list(page, "#seat")
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("window.gui.state.position.moves.length === 0", timeout=WAIT_S * 1000)
    assert page.input_value("#seat") == str(first) and state(page, "seat") == first

    # Reached with Tab, the game list keeps its arrows; Esc gives them back to the board.
    names = page.eval_on_selector_all("#game option", "options => options.map(o => o.value)")
    page.focus("button[data-mode='play']")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "game"
    page.keyboard.press("ArrowDown")
    following = names[names.index("othello") + 1]
    page.wait_for_function(f"window.gui.state.position.game === '{following}'", timeout=WAIT_S * 1000)
    assert page.evaluate("document.activeElement.id") == "game"
    page.keyboard.press("ArrowUp")
    page.wait_for_function("window.gui.state.position.game === 'othello'", timeout=WAIT_S * 1000)
    page.keyboard.press("Escape")
    assert page.evaluate("document.activeElement.id") != "game"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    assert state(page, "game") == "othello"
    assert not page.errors
    page.close()


def test_undo_finds_the_humans_turn_when_a_click_overtook_the_answer_to_new_game(browser, gui: str) -> None:
    """A move clicked on the board shown before the answer to "New game" came (the same
    starting board) makes that answer stale; Undo after the engine's reply still goes back
    to the human's turn, the start, and not one ply back to the engine's turn (which would
    have the engine play the same move again). The answer is held back on its way to the
    page until the click has gone out, as a slow network or a loaded machine does."""
    held: list[str] = []
    hold = {"on": False}

    def route(page) -> None:
        def handle(socket) -> None:
            server = socket.connect_to_server()

            def from_server(message) -> None:
                answer = json.loads(message)
                if hold["on"] and answer.get("type") == "position" and answer.get("moves") == []:
                    held.append(message)
                else:
                    socket.send(message)

            def from_page(message) -> None:
                server.send(message)
                if hold["on"] and json.loads(message).get("op") == "play":
                    hold["on"] = False
                    for answer in held:
                        socket.send(answer)

            server.on_message(from_server)
            socket.on_message(from_page)

        page.route_web_socket(re.compile(r"^wss?://"), handle)

    page = open_page(browser, gui, "othello", prepare=route)
    page.click("button[data-mode='play']")
    page.fill("#movetime", "50")
    page.select_option("#seat", "0")
    page.wait_for_function("window.gui.state.position.seq === window.gui.state.seq && !window.gui.state.thinking"
                           " && window.gui.state.position.moves.length === 0", timeout=WAIT_S * 1000)
    hold["on"] = True
    asked = state(page, "seq")
    page.click("#new-game")
    page.wait_for_function(f"window.gui.state.seq > {asked}", timeout=WAIT_S * 1000)
    click_cells(page, state(page, "position.legal")[0]["paths"][0])
    page.wait_for_function("window.gui.state.position.moves.length === 2 && !window.gui.state.thinking",
                           timeout=WAIT_S * 1000)
    assert held, "the answer to New game was not held back: the test tried nothing"
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("window.gui.state.position.moves.length === 0 && window.gui.state.ply === 0",
                           timeout=WAIT_S * 1000)
    page.wait_for_timeout(300)  # an engine move sent by mistake would show by now
    assert state(page, "position.moves") == [] and not state(page, "thinking")
    assert not page.errors
    page.close()


def open_list(page, selector: str) -> None:
    """Click a list open, as a user does, and give it the time it takes to open."""
    page.click(selector)
    page.wait_for_function(f"document.activeElement === document.querySelector({selector!r})")
    page.wait_for_timeout(300)


def test_each_game_keeps_its_own_game_when_another_is_chosen(browser, gui: str, tmp_path: Path) -> None:
    """Choosing another game asks nothing and drops nothing: the game shown, with its
    branches, the ply shown and its whole-game analysis, comes back when its game is
    chosen again, across a reload too."""
    page = open_page(browser, gui, "clobber")
    moves = random_game("clobber", 6, seed=3)
    load_moves(page, tmp_path, "clobber", moves)
    analyse_game(page)
    branch = branch_at_ply_three(page, moves)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.select_option("#game", "othello")
    page.wait_for_function("window.gui.state.position.game === 'othello'", timeout=WAIT_S * 1000)
    assert state(page, "line") == [] and not page.query_selector("#graph svg")
    page.select_option("#game", "clobber")
    page.wait_for_function("window.gui.state.position.game === 'clobber' && "
                           "window.gui.state.position.moves.length === 3", timeout=WAIT_S * 1000)
    assert state(page, "line") == branch and page.query_selector("#graph svg.graph")
    assert page.get_attribute("#moves button.branch[data-branch='3']", "data-move") == moves[2]
    assert page.inner_text("#message") == "the clobber game as it was left: 3 plies"
    # Across a reload (which keeps no whole-game analysis).
    page.select_option("#game", "othello")
    page.wait_for_function("window.gui.state.position.game === 'othello'", timeout=WAIT_S * 1000)
    page.reload()
    page.wait_for_function("window.gui.state.position && window.gui.state.position.game === 'othello'",
                           timeout=WAIT_S * 1000)
    page.select_option("#game", "clobber")
    page.wait_for_function("window.gui.state.position.game === 'clobber' && "
                           "window.gui.state.position.moves.length === 3", timeout=WAIT_S * 1000)
    assert state(page, "line") == branch
    # A whole-game analysis under way stops when another game is chosen.
    page.fill("#replay-movetime", "30")
    page.click("#analyse-game")
    page.select_option("#game", "othello")
    page.wait_for_function("window.gui.state.position.game === 'othello'", timeout=WAIT_S * 1000)
    assert state(page, "gameSeq") is None, "the other game's analysis stops"
    assert not dialogs and not page.errors
    page.close()


def test_the_move_list_steps_the_game_and_the_board_flips(browser, gui: str, shots: Path, tmp_path: Path) -> None:
    """The moves of a loaded game are listed, numbered by rounds; a click on one shows
    the position after it, marked current; the whole-game analysis's marks stand beside
    the moves it marks; `f` and the Flip button turn the board half a turn, the cells
    keeping their names, and a reload keeps it turned."""
    page = open_page(browser, gui, "othello")
    page.click("button[data-mode='replay']")
    moves = random_game("othello", 8, seed=7)
    record = tmp_path / "othello.txt"
    record.write_text(f"setgame othello\n{' '.join(moves)}\n")
    page.set_input_files("#record-file", str(record))
    page.wait_for_function(f"document.querySelectorAll('#moves button.move').length === {len(moves)}",
                           timeout=WAIT_S * 1000)
    assert page.eval_on_selector_all("#moves button.move", "buttons => buttons.map(b => b.textContent)") == moves
    assert page.eval_on_selector_all("#moves .round", "items => items.map(i => i.textContent)") == [
        f"{n}." for n in range(1, len(moves) // 2 + 1)]
    page.click("#moves button.move[data-ply='5']")
    page.wait_for_function("window.gui.state.position.moves.length === 5", timeout=WAIT_S * 1000)
    assert state(page, "position.moves") == moves[:5]
    assert page.get_attribute("#moves button.move[data-ply='5']", "aria-current") == "true"
    assert page.get_attribute("#moves button.move[data-ply='4']", "aria-current") == "false"
    # The keys still step the game: the clicked move keeps no focus.
    page.keyboard.press("ArrowRight")
    page.wait_for_function("window.gui.state.position.moves.length === 6", timeout=WAIT_S * 1000)

    def corner() -> tuple[str, str]:
        return (page.get_attribute(".cell[data-cell='a1']", "x"), page.get_attribute(".cell[data-cell='a1']", "y"))

    upright = corner()
    page.keyboard.press("f")
    page.wait_for_function("window.gui.state.flipped")
    flipped = corner()
    assert flipped != upright
    size = float(page.get_attribute("#board svg", "width"))
    assert float(flipped[0]) == size - float(upright[0]) - 48  # a1's square, turned about the centre
    page.screenshot(path=str(shots / "othello-flipped.png"))
    page.reload()
    page.wait_for_function("window.gui.state.position && window.gui.state.position.moves.length === 6",
                           timeout=WAIT_S * 1000)
    assert state(page, "flipped") and corner() == flipped
    page.click("#flip")
    page.wait_for_function("!window.gui.state.flipped")
    assert corner() == upright

    analyse_game(page)
    marks = page.evaluate("window.gui.state.plies.map(ply => ply && ply.mark)")
    shown = page.eval_on_selector_all(
        "#moves button.move", "buttons => buttons.map(b => { const s = b.querySelector('span'); "
        "return s ? [s.className, s.textContent] : null; })")
    assert shown == [[mark, {"mistake": "?", "blunder": "??"}[mark]] if mark else None for mark in marks[1:]]
    # The graph saves as an image.
    with page.expect_download() as download:
        page.click("#save-graph")
    saved = download.value
    assert saved.suggested_filename == "othello-analysis.png"
    image = Path(saved.path()).read_bytes()
    assert image.startswith(b"\x89PNG\r\n\x1a\n") and len(image) > 2000
    assert not page.errors
    page.close()


def test_copy_paste_and_a_shared_link(browser, gui: str, shots: Path) -> None:
    """A move list pasted as text loads as a file would; the position's board text, the
    game's move list and a link go to the clipboard; the link opens a new page on the
    same game and ply, and the move list pasted into it loads the same game."""
    page = open_page(browser, gui, "othello")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    moves = random_game("othello", 7, seed=11)
    page.click("button[data-mode='replay']")
    page.fill("#record-text", " ".join(moves))  # a bare move list: one of the game shown
    page.click("#load-text")
    page.wait_for_function(f"window.gui.state.line.length === {len(moves)}", timeout=WAIT_S * 1000)
    assert state(page, "line") == moves
    page.click("#moves button.move[data-ply='3']")
    page.wait_for_function("window.gui.state.position.moves.length === 3", timeout=WAIT_S * 1000)

    def clipboard_after(button: str) -> str:
        page.evaluate("navigator.clipboard.writeText('')")
        page.click(button)
        page.wait_for_function("document.getElementById('message').textContent.endsWith('copied')")
        return page.evaluate("navigator.clipboard.readText()")

    assert clipboard_after("#copy-position") == state(page, "position.board_text")
    listed = clipboard_after("#copy-moves")
    assert listed == f"setgame othello\n{' '.join(moves)}\n"
    shared = clipboard_after("#copy-link")
    assert shared.startswith(gui) and "#" in shared
    board = state(page, "position.board_text")

    other = browser.new_context(viewport={"width": 1100, "height": 820}, bypass_csp=True).new_page()
    errors: list[str] = []
    other.on("pageerror", lambda error: errors.append(str(error)))
    other.goto(shared)
    other.wait_for_function("window.gui.state.position && window.gui.state.position.moves.length === 3",
                            timeout=WAIT_S * 1000)
    assert other.evaluate("window.gui.state.line") == moves
    assert other.evaluate("window.gui.state.position.board_text") == board
    assert "#" not in other.url, "the address drops the link's game once it is shown"
    assert other.get_attribute("#moves button.move[data-ply='3']", "aria-current") == "true"
    other.screenshot(path=str(shots / "shared-link.png"))
    # The copied move list, pasted, loads the same game.
    other.fill("#record-text", listed)
    other.click("#load-text")
    other.wait_for_function("window.gui.state.ply === 0", timeout=WAIT_S * 1000)
    assert other.evaluate("window.gui.state.line") == moves
    # Text that is no record is refused in words, and the game stays.
    other.fill("#record-text", "setgame othello\nzz")
    other.click("#load-text")
    other.wait_for_function("document.getElementById('message').className === 'error'", timeout=WAIT_S * 1000)
    assert "Cannot read the record" in other.inner_text("#message")
    assert other.evaluate("window.gui.state.line") == moves
    assert not errors and not page.errors
    other.close()
    page.close()


def test_engine_lines_preview_on_hover_and_play_on_click(browser, gui: str, shots: Path, tmp_path: Path) -> None:
    """The pointer on an engine line draws its first moves on the board, numbered; a
    click on a move of a line plays the line up to it. Inside a loaded game, a line
    that leaves the game's moves starts a branch beside them."""
    page = open_page(browser, gui, "othello")
    page.click("button[data-mode='analyse']")
    page.wait_for_function("document.querySelectorAll('#lines tr.pv').length >= 2 && "
                           "window.gui.state.search && window.gui.state.search.depth >= 6", timeout=WAIT_S * 1000)
    page.keyboard.press("Space")  # stops the analysis: its last lines stay
    settle_lines(page)
    second = state(page, "lines[2]")
    page.hover("#lines tr.pv[data-rank='2'] td:first-child")
    page.wait_for_function("window.gui.state.preview === 2")
    labels = page.eval_on_selector_all("#board text.pv-label", "ts => ts.map(t => t.textContent)")
    shown = min(8, len(second["pv"]))
    assert sorted(labels, key=int) == [str(k) for k in range(1, shown + 1)]
    page.screenshot(path=str(shots / "othello-line-preview.png"))
    page.mouse.move(5, 5)
    page.wait_for_function("window.gui.state.preview === null")
    best = state(page, "lines[1].pv")
    page.click("#lines span.pv-move[data-rank='1'][data-index='1']")
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    assert state(page, "line") == best[:2]

    # Inside a loaded game.
    moves = random_game("othello", 6, seed=5)
    load_moves(page, tmp_path, "othello", moves)
    page.click("#moves button.move[data-ply='2']")
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    page.click("button[data-mode='analyse']")
    page.wait_for_function("document.querySelectorAll('#lines tr.pv').length >= 2", timeout=WAIT_S * 1000)
    page.keyboard.press("Space")
    settle_lines(page)
    lines = page.evaluate("Object.values(window.gui.state.lines).map(l => l.pv)")
    rank = next(i for i, pv in enumerate(lines, 1) if pv[0] != moves[2])
    page.click(f"#lines span.pv-move[data-rank='{rank}'][data-index='1']")
    page.wait_for_function("window.gui.state.position.moves.length === 4", timeout=WAIT_S * 1000)
    assert state(page, "line") == moves[:2] + lines[rank - 1][:2]
    # The game's own moves stay, a branch beside the line: one click shows them again.
    page.click(f"#moves button.branch[data-branch='3'][data-move='{moves[2]}']")
    page.wait_for_function("window.gui.state.position.moves.length === 3", timeout=WAIT_S * 1000)
    assert state(page, "line") == moves
    assert not page.errors
    page.close()


def test_a_wide_window_grows_the_board_and_the_eval_bar_keeps_one_side(browser, gui: str, shots: Path) -> None:
    """At 1920 px the board grows past its old 560 px and an upright eval bar stands
    beside it; the bar and its score are the first side's, whichever side is to move."""
    page = open_page(browser, gui, "clobber", width=1920, height=1080)
    board = bounds(page, "#board svg")
    assert board["width"] > 800 and board["y"] + board["height"] <= 1080, board
    page.click("button[data-mode='analyse']")
    sides = state(page, "position.sides")
    for ply in (0, 1):
        page.wait_for_function(f"window.gui.state.position.moves.length === {ply} && window.gui.state.search",
                               timeout=WAIT_S * 1000)
        page.wait_for_function("!document.getElementById('evalbar').hidden", timeout=WAIT_S * 1000)
        bar = page.query_selector("#evalbar").bounding_box()
        assert bar["height"] > 0.9 * board["height"] and bar["width"] < 30, bar
        assert page.get_attribute("#evalbar", "title").endswith(f" for {sides[0]}")
        if ply == 0:
            page.screenshot(path=str(shots / "clobber-analysis-1920.png"))
            click_cells(page, state(page, "position.legal")[0]["paths"][0])
    page.click("button[data-mode='replay']")
    assert page.is_hidden("#evalbar")
    assert not page.errors
    page.close()


def test_a_move_inside_a_game_starts_a_branch_that_can_be_followed_promoted_and_deleted(
        browser, gui: str, shots: Path, tmp_path: Path) -> None:
    page = open_page(browser, gui, "clobber")
    moves = random_game("clobber", 6, seed=3)
    load_moves(page, tmp_path, "clobber", moves)
    assert page.is_hidden("#branch-row"), "a game of one line has no branch to manage"
    branch = branch_at_ply_three(page, moves)
    assert state(page, "line") == branch
    assert page.inner_text("#ply").endswith("(a branch)")
    assert page.get_attribute("#moves button.branch[data-branch='3']", "data-move") == moves[2]
    page.screenshot(path=str(shots / "clobber-branch.png"))
    # A reload keeps both lines.
    page.reload()
    page.wait_for_function("window.gui.state.position && window.gui.state.position.moves.length === 3",
                           timeout=WAIT_S * 1000)
    assert state(page, "line") == branch
    # Made the main line: the game's moves become the branch.
    page.click("#promote")
    assert not page.inner_text("#ply").endswith("(a branch)")
    page.click(f"#moves button.branch[data-branch='3'][data-move='{moves[2]}']")
    # The line changes at the click, the page once the position has come back.
    page.wait_for_function(f"document.querySelector('#ply').textContent === 'ply 3 / {len(moves)} (a branch)'",
                           timeout=WAIT_S * 1000)
    assert state(page, "line") == moves
    # Deleting asks first; no keeps it, yes deletes the game's moves from ply 3 on.
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#delete-here")
    assert state(page, "line") == moves
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#delete-here")
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    assert state(page, "line") == branch and state(page, "ply") == 2
    assert page.query_selector("#moves button.branch") is None
    assert page.is_hidden("#branch-row")
    assert not page.errors
    page.close()


def test_a_whole_session_in_every_game_leaves_no_error(browser, tmp_path: Path) -> None:
    """`scripts/gui_tour`'s session, as a user has one, in every game: a game played to
    its end by clicking against the engine, analysed whole, stepped through, a position
    of it analysed. No page error, and nothing in the server's log at warning or
    above."""
    log = tmp_path / "engine-gui.log"
    with log.open("w") as sink:
        process = subprocess.Popen([sys.executable, "-m", "adapters.gui.main", "--port", "0", "--log-level", "warning"],
                                   stdout=subprocess.PIPE, stderr=sink, text=True)
    try:
        address = re.search(r"http://\S+", process.stdout.readline()).group(0)
        page = browser.new_context(viewport={"width": 1100, "height": 820}, bypass_csp=True).new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(address)
        page.wait_for_selector("#game option", state="attached", timeout=WAIT_S * 1000)
        for game in GAMES:
            plies = tour(page, game, seed=2, movetime=20)
            assert plies > 0 and page.evaluate("window.gui.state.plies.length") == plies + 1, game
        page.close()
    finally:
        process.terminate()
        process.wait(10)
    assert not errors
    assert log.read_text() == "", log.read_text()


def test_every_score_on_a_screen_reads_from_the_first_sides_view(browser, gui: str, tmp_path: Path) -> None:
    """With the second side to move, the lines table, the arrows, the bar and the
    whole-game analysis all read from the first side's view, as the table's caption
    says: the best line's score is the same number in each."""
    page = open_page(browser, gui, "othello")
    moves = random_game("othello", 6, seed=2)
    load_moves(page, tmp_path, "othello", moves)
    analyse_game(page)
    # The graph: one line, the first side's.
    assert len(page.query_selector_all("#graph polyline.score")) == 1
    assert page.text_content("#graph text.legend") == "score for black"
    page.click("#moves button.move[data-ply='3']")
    page.wait_for_function("window.gui.state.position.moves.length === 3", timeout=WAIT_S * 1000)
    assert state(page, "position.to_move") == 1
    # The replay's words: the move played by the first side (ply 4 is white's) turned.
    analysed = state(page, "plies[4]")
    kind, value = analysed["score"].split()
    assert analysed["player"] == 1 and kind == "cp"
    assert f"scored {-int(value) / 100:+.2f}".replace("+0.00", "0.00") in page.inner_text("#ply-analysis")
    assert page.inner_text("#ply-analysis").endswith("(scores for black)")

    page.click("button[data-mode='analyse']")
    page.wait_for_function("document.querySelectorAll('#lines tr.pv').length >= 2 && "
                           "window.gui.state.search && window.gui.state.search.depth >= 6", timeout=WAIT_S * 1000)
    page.keyboard.press("Space")
    settle_lines(page)
    best = state(page, "lines[1]")
    table = page.inner_text("#lines tr.pv[data-rank='1'] td:nth-child(2)")
    expected = f"{-best['cp'] / 100:+.2f}".replace("+0.00", "0.00") if best["mate"] is None else table
    assert table == expected
    assert page.text_content("#board text.pv-label[data-rank='1']") == table
    assert page.get_attribute("#evalbar", "title") == f"{table} for black"
    assert page.inner_text("#lines caption") == "scores and chances for black"
    assert not page.errors
    page.close()


def test_knight_isolation_shows_three_players_in_fixed_colours(browser, gui: str, tmp_path: Path) -> None:
    """The eval bar has a segment a player, in the player's colour and order whoever is
    to move; the table's caption names the side the scores are for (the side to move,
    the one the engine scores); the status says who is out in words."""
    page = open_page(browser, gui, "isolation")
    moves = random_game("isolation", 60, seed=0)
    load_moves(page, tmp_path, "isolation", moves)
    colours = [rgb(fill) for fill, _ in state(page, "position.view.colours")]
    page.click("button[data-mode='analyse']")
    sides = state(page, "position.sides")
    for ply in (1, 2):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"window.gui.state.position.moves.length === {ply} && window.gui.state.search"
                               " && !document.getElementById('evalbar').hidden", timeout=WAIT_S * 1000)
        assert shares(page, "#evalbar") == colours
        assert page.inner_text("#lines caption") == f"scores and places for {sides[ply]}, to move"
        title = page.get_attribute("#evalbar", "title")
        assert title.startswith("the chances of finishing first: red ") and "green" in title and "blue" in title
    page.keyboard.press("Space")
    page.click("button[data-mode='replay']")
    out = next(ply for ply in range(len(moves)) if "out=" in isolation_fields(moves, ply))
    page.click(f"#moves button.move[data-ply='{out}']")
    page.wait_for_function(f"window.gui.state.position.moves.length === {out}", timeout=WAIT_S * 1000)
    status = page.inner_text("#status")
    assert "out: " in status and "=" not in status, status
    assert not page.errors
    page.close()


def test_a_narrow_windows_score_bar_has_the_pieces_colours(browser, gui: str) -> None:
    """Under 1000 px the panel's score bar fills each side's share in its pieces' colour,
    the first side's at the left, as the upright bar does."""
    page = open_page(browser, gui, "othello", width=390, height=844)
    page.click("button[data-mode='analyse']")
    page.wait_for_function("window.gui.state.search", timeout=WAIT_S * 1000)
    colours = [rgb(fill) for fill, _ in state(page, "position.view.colours")]
    assert shares(page, "#scorebar") == colours
    assert page.is_visible("#scorebar")
    page.keyboard.press("Space")
    assert not page.errors
    page.close()


def test_the_game_graph_is_on_a_wide_screen_without_scrolling(browser, gui: str, tmp_path: Path) -> None:
    """At 1920 x 1080, once a game is analysed, the board, its graph and the steps under
    them all fit the window."""
    page = open_page(browser, gui, "othello", width=1920, height=1080)
    load_moves(page, tmp_path, "othello", random_game("othello", 8, seed=7))
    analyse_game(page)
    for mode in ("replay", "analyse"):
        page.click(f"button[data-mode='{mode}']")
        for part in ("#board svg", "#graph svg", "#steps"):
            box = bounds(page, part)
            assert box["y"] + box["height"] <= 1080, (mode, part, box)
        assert bounds(page, "#board svg")["width"] > 600
    assert not page.errors
    page.close()


@pytest.mark.parametrize("game", ["clobber", "abalone"])
def test_the_arrows_scores_stay_on_the_board_and_apart(browser, gui: str, game: str) -> None:
    """An arrow's score at the board's edge is drawn inside it, and the scores of arrows
    whose heads are close do not overlap (as measured by the browser)."""
    page = open_page(browser, gui, game, width=390, height=844)
    view = state(page, "position.view")
    names = [cell[0] for cell in view["cells"]]
    if game == "clobber":  # heads on the right edge, and in the corner
        arrows = [{"from": "g3", "to": "h3", "rank": 1, "label": "+0.25"},
                  {"from": "g1", "to": "h1", "rank": 2, "label": "win in 12 (+6)"},
                  {"from": "h5", "to": "h6", "rank": 3, "label": "-10.50"}]
    else:  # three lines ending on one cell and its neighbours, one at the right edge
        arrows = [{"from": "2,0", "to": "3,2", "rank": 1, "label": "+0.28"},
                  {"from": "4,0", "to": "3,2", "rank": 2, "label": "+0.30"},
                  {"from": "2,2", "to": "4,2", "rank": 3, "label": "+0.31"},
                  {"from": "7,4", "to": "8,4", "rank": 4, "label": "-1.10"}]
    assert all(arrow["from"] in names and arrow["to"] in names for arrow in arrows)
    boxes = page.evaluate("""([view, arrows]) => {
        const holder = document.createElement('div');
        holder.innerHTML = window.Board.renderBoard(view, {arrows});
        document.body.appendChild(holder);
        const svg = holder.querySelector('svg'), size = svg.viewBox.baseVal;
        const boxes = [...svg.querySelectorAll('text.pv-label')].map(t => {
            const b = t.getBBox(); return [b.x, b.y, b.width, b.height, t.textContent]; });
        holder.remove();
        return {width: size.width, height: size.height, boxes};
    }""", [view, arrows])
    assert len(boxes["boxes"]) == len(arrows)
    for x, y, width, height, text in boxes["boxes"]:
        assert 0 <= x and x + width <= boxes["width"] and 0 <= y and y + height <= boxes["height"], text
    for i, (x, y, w, h, a) in enumerate(boxes["boxes"]):
        for x2, y2, w2, h2, b in boxes["boxes"][i + 1:]:
            assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y, (a, b)
    assert not page.errors
    page.close()


def test_a_press_held_on_a_line_during_analysis_plays_its_move(browser, gui: str) -> None:
    """The lines table is updated in place: a press on a move of a line, held while new
    lines come, then released, plays the line up to that move as it was pressed."""
    page = open_page(browser, gui, "othello")
    page.click("button[data-mode='analyse']")
    page.wait_for_function("document.querySelectorAll('#lines span.pv-move[data-rank=\"1\"]').length >= 2",
                           timeout=WAIT_S * 1000)
    pressed = None
    for _ in range(10):  # the move may leave the point found before the press lands
        box = page.locator("#lines span.pv-move[data-rank='1'][data-index='1']").bounding_box()
        if box is None:  # a line of one move for now: its second comes with a later set
            page.wait_for_timeout(50)
            continue
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        pressed = page.evaluate("window.gui.state.pressed && window.gui.state.pressed.pv")
        if pressed and page.evaluate("window.gui.state.pressed.count") == 2:
            break
        page.mouse.up()
    assert pressed, "no press landed on the best line's second move"
    page.evaluate("window.pressedSet = window.gui.state.search")
    page.wait_for_function("window.gui.state.search !== window.pressedSet", timeout=WAIT_S * 1000)
    page.mouse.up()
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    assert state(page, "line") == pressed[:2]
    assert not page.errors
    page.close()


def test_the_words_read_right(browser, gui: str, tmp_path: Path) -> None:
    """A record loaded says its game and plies in words; deleting a move asks with the
    move as the move list writes it."""
    page = open_page(browser, gui, "abalone")
    moves = random_game("abalone", 1, seed=3) + random_game("abalone", 2, seed=3)[1:]
    load_moves(page, tmp_path, "abalone", moves[:1])
    assert page.inner_text("#message") == "loaded a game of abalone, 1 ply"
    page.fill("#record-text", " ".join(moves))
    page.click("#load-text")
    page.wait_for_function("window.gui.state.line.length === 2", timeout=WAIT_S * 1000)
    assert page.inner_text("#message") == "loaded a game of abalone, 2 plies"
    page.click("#moves button.move[data-ply='1']")
    page.wait_for_function("window.gui.state.position.moves.length === 1", timeout=WAIT_S * 1000)
    other = next(entry for entry in state(page, "position.legal") if entry["move"] != moves[1])
    click_cells(page, other["paths"][0])  # a branch beside the second move
    page.wait_for_function("window.gui.state.position.moves.length === 2", timeout=WAIT_S * 1000)
    page.click("#moves button.move[data-ply='1']")
    page.wait_for_function("window.gui.state.position.moves.length === 1", timeout=WAIT_S * 1000)
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("#delete-here")
    assert asked == [f"Delete {readable('abalone', moves[0])} and the 2 moves of the lines after it?"]
    assert not page.errors
    page.close()


def tree_record(game: str, seed: int):
    """A record of `game` with a main line of 6 plies, a variation at its second ply,
    comments, glyphs and shapes: what an SGF file brings the page."""
    from records.tree import Shape, grown

    rules = find_game(game)
    moves = random_game(game, 6, seed=seed)
    record = grown(game, moves, headers={"EV": "a test", "GN": f"{game} with a variation"})
    record.root.comment = "before the first move"
    first = record.root.children[0]
    first.comment, first.glyphs = "a fine start", [1]
    position = rules.initial_state({})
    position = position.play(rules.parse_move(position, moves[0]))
    other = next(token for token in sorted_tokens(rules, position) if token != moves[1])
    branch = first.add(other, -1)
    branch.comment, branch.glyphs = "also possible", [5]
    record.root.children[0].children[0].shapes = [Shape((cell_of(game, moves[0]),), "red")]
    record.follow()
    return record


def cell_of(game: str, move: str) -> str:
    """A cell of the board named as the page names it (the first of the move's path)."""
    from adapters.codingame import turn_format

    return turn_format(game).BOARD_STYLE.click_paths(move)[0][0]


@pytest.mark.parametrize("game", GAMES)
def test_a_game_tree_leaves_the_page_as_sgf_and_comes_back(browser, gui: str, tmp_path: Path, game: str) -> None:
    """An SGF record opened in the page keeps its variations, comments, glyphs and shapes;
    Save SGF writes the same tree, which a fresh page opens again."""
    from records.sgf import read_sgf, write_sgf

    record = tree_record(game, seed=7)
    path = tmp_path / f"{game}.sgf"
    path.write_text(write_sgf([record]))
    page = open_page(browser, gui, game)
    page.click("button[data-mode='replay']")
    page.set_input_files("#record-file", str(path))
    page.wait_for_function(f"window.gui.state.line.length === {len(record.moves())}"
                           " && window.gui.state.tree.children[0].children.length === 2", timeout=WAIT_S * 1000)
    assert state(page, "line") == record.moves()
    with page.expect_download(timeout=WAIT_S * 1000) as download:
        page.click("#save-sgf")
    saved = tmp_path / "saved.sgf"
    download.value.save_as(saved)
    assert download.value.suggested_filename == f"{game}.sgf"
    assert read_sgf(saved.read_text(), "saved.sgf") == [record]
    page.close()
    fresh = open_page(browser, gui, "othello" if game != "othello" else "clobber")
    fresh.click("button[data-mode='replay']")
    fresh.set_input_files("#record-file", str(saved))
    fresh.wait_for_function(f"window.gui.state.game === '{game}' && window.gui.state.line.length === "
                            f"{len(record.moves())}", timeout=WAIT_S * 1000)
    assert state(fresh, "tree.children[0].children[1].comment") == "also possible"
    # Pasted as text, the record loads the same.
    fresh.fill("#record-text", saved.read_text())
    fresh.evaluate("window.gui.state.tree = {move: null, children: []}")
    fresh.click("#load-text")
    fresh.wait_for_function("window.gui.state.tree.children.length === 1"
                            " && window.gui.state.tree.children[0].children.length === 2", timeout=WAIT_S * 1000)
    assert not fresh.errors
    fresh.close()


def test_a_tree_the_rules_refuse_is_not_saved_and_the_page_says_why(browser, gui: str) -> None:
    page = open_page(browser, gui, "othello")
    page.evaluate("window.gui.state.tree = {move: null, children: [{move: 'a1', children: []}]}")
    page.click("#save-sgf")
    page.wait_for_function("document.getElementById('message').className === 'error'", timeout=WAIT_S * 1000)
    assert "Cannot save the game" in page.inner_text("#message") and "a1" in page.inner_text("#message")
    page.close()


def test_a_glyph_and_a_comment_on_a_move_are_kept_and_saved(browser, gui: str, tmp_path: Path) -> None:
    """The move shown takes a glyph (a click; a second click takes it off) and a
    comment; the move list shows the glyph, a reload keeps both, Save SGF writes them."""
    from records.sgf import read_sgf

    page = open_page(browser, gui, "clobber")
    moves = random_game("clobber", 5, seed=9)
    load_moves(page, tmp_path, "clobber", moves)
    page.click("#moves button.move[data-ply='2']")
    page.wait_for_function("window.gui.state.ply === 2 && !document.getElementById('notes').hidden")
    page.click("#notes button.glyph[data-glyph='6']")
    page.click("#notes button.glyph[data-glyph='1']")
    page.click("#notes button.glyph[data-glyph='1']")
    page.click("#notes button.glyph[data-glyph='6']")
    page.fill("#comment", "dubious: the edge was better")
    assert page.inner_text("#moves button.move[data-ply='2'] .glyph") == "?!"
    page.reload()
    page.wait_for_function("window.gui.state.position && window.gui.state.line.length === 5", timeout=WAIT_S * 1000)
    page.click("#moves button.move[data-ply='2']")
    page.wait_for_function("window.gui.state.ply === 2")
    assert page.input_value("#comment") == "dubious: the edge was better"
    assert page.get_attribute("#notes button.glyph[data-glyph='6']", "aria-pressed") == "true"
    with page.expect_download(timeout=WAIT_S * 1000) as download:
        page.click("#save-sgf")
    saved = tmp_path / "noted.sgf"
    download.value.save_as(saved)
    (record,) = read_sgf(saved.read_text(), "noted.sgf")
    second = record.root.main_line()[1]
    assert (second.move, second.glyphs, second.comment) == (moves[1], [6], "dubious: the edge was better")
    assert "DO[]" in saved.read_text()
    assert not page.errors
    page.close()


@pytest.mark.parametrize("game", ["othello", "abalone"])
def test_arrows_and_circles_drawn_with_the_right_button_are_kept_per_move(browser, gui: str, tmp_path: Path,
                                                                          game: str) -> None:
    from records.sgf import read_sgf
    from records.tree import Shape

    page = open_page(browser, gui, game)
    moves = random_game(game, 3, seed=2)
    load_moves(page, tmp_path, game, moves)
    page.click("#moves button.move[data-ply='1']")
    page.wait_for_function("window.gui.state.ply === 1")
    cells = page.evaluate("Array.from(document.querySelectorAll('#board .cell')).map(c => c.dataset.cell)")
    first, second, third = cells[0], cells[len(cells) // 2], cells[-1]
    right_drag(page, first, second, ("Shift",))
    right_drag(page, third, third)
    right_drag(page, second, second, ("Alt",))
    right_drag(page, second, second, ("Alt",))  # the same again takes it off
    page.wait_for_function("document.querySelectorAll('#board g.shape').length === 2")
    assert page.get_attribute("#board g.shape[data-colour='red']", "data-cells") == f"{first} {second}"
    # Another move shows its own shapes (none); back at ply 1 they are there again.
    page.click("#moves button.move[data-ply='2']")
    page.wait_for_function("window.gui.state.ply === 2 && !document.querySelector('#board g.shape')")
    page.click("#moves button.move[data-ply='1']")
    page.wait_for_function("document.querySelectorAll('#board g.shape').length === 2")
    with page.expect_download(timeout=WAIT_S * 1000) as download:
        page.click("#save-sgf")
    saved = tmp_path / "shapes.sgf"
    download.value.save_as(saved)
    (record,) = read_sgf(saved.read_text(), "shapes.sgf")
    assert record.root.main_line()[0].shapes == [Shape((third,)), Shape((first, second), "red")]
    assert not page.errors
    page.close()


def test_the_whole_game_analysis_sums_up_each_player(browser, gui: str, tmp_path: Path) -> None:
    """After *Analyse the game*, a row per player: accuracy, ?!, ?, ?? and the average
    loss, as engine-analyse's summary counts them from the same analysis; a branch,
    which keeps only part of the analysis, hides it."""
    from adapters.analysis.summary import INACCURACY_POINTS

    page = open_page(browser, gui, "othello")
    moves = random_game("othello", 12, seed=6)
    load_moves(page, tmp_path, "othello", moves)
    analyse_game(page)
    page.wait_for_function("!document.getElementById('game-summary').hidden")
    rows = page.evaluate("Array.from(document.querySelectorAll('#game-summary tr[data-side]'))"
                         ".map(row => Array.from(row.cells).map(cell => cell.textContent))")
    plies = state(page, "plies")[1:]
    assert [row[0] for row in rows] == ["black", "white"]
    for seat, row in enumerate(rows):
        mine = [ply for ply in plies if ply["player"] == seat]
        marks = [ply["mark"] for ply in mine]
        unmarked = sum(1 for ply in mine if not ply["mark"] and (ply["lost"] or 0) >= INACCURACY_POINTS)
        assert row[2:5] == [str(unmarked), str(marks.count("mistake")), str(marks.count("blunder"))]
        assert 0 <= float(row[1]) <= 100
    branch_at_ply_three(page, moves)
    page.wait_for_function("document.getElementById('game-summary').hidden")
    assert not page.errors
    page.close()


#: Keeps every board the page draws, with the plies of the position it shows, in
#: window.boards: a board drawn is seen however soon it is drawn again.
KEEP_BOARDS = """() => { window.boards = []; new MutationObserver(() => window.boards.push({
    plies: window.gui.state.position.moves.length, svg: document.getElementById('board').innerHTML}))
    .observe(document.getElementById('board'), {childList: true}); }"""


def boards_drawn(page, plies: int) -> list[str]:
    """The boards drawn since KEEP_BOARDS of the position after `plies` moves, in order."""
    return page.evaluate(f"window.boards.filter(board => board.plies === {plies}).map(board => board.svg)")


def animated(svg: str) -> dict[str, list[str]]:
    """The cells of each kind of animation in a board's SVG: flipped, appeared, removed
    (the ghosts), and how many SVG animation elements it holds."""
    return {"flipped": re.findall(r'data-cell-flipped="([^"]+)"', svg),
            "appeared": re.findall(r'data-cell-appeared="([^"]+)"', svg),
            "removed": re.findall(r'class="removed" data-from="([^"]+)"', svg),
            "animations": [str(len(re.findall(r"<animate(?:Transform)?\b", svg)))]}


def test_a_move_is_animated_unless_the_setting_is_off_which_a_reload_keeps(browser, gui: str) -> None:
    """A move played in Othello is drawn as it happens: the disc placed grows and each
    disc it turns turns over (SVG's own animation elements, which the page's
    Content-Security-Policy allows); the move taken back runs backwards, the disc going
    as a ghost; the same position drawn again is still. With *Animate* unticked no
    board is animated, and the choice outlives a reload. A system asking for reduced
    motion has it unticked from the start."""
    from adapters.codingame import turn_format

    page = open_page(browser, gui, "othello")
    assert page.is_checked("#animate")
    page.click("button[data-mode='replay']")
    page.wait_for_function("!window.gui.state.trial && window.gui.state.position.seq === window.gui.state.seq")
    move = state(page, "position.legal")[0]
    # The discs the move turns, from the rules.
    rules, style = find_game("othello"), turn_format("othello").BOARD_STYLE
    start = rules.initial_state({})
    views = [style.view(rules.format_board(position).split()[0].split("/"), rules.player_names)
             for position in (start, start.play(rules.parse_move(start, move["move"])))]
    turned = [a[0] for a, b in zip(views[0]["cells"], views[1]["cells"], strict=True) if a[3] >= 0 and a[3] != b[3]]
    assert turned
    page.evaluate(KEEP_BOARDS)
    click_cells(page, move["paths"][0])
    page.wait_for_function("window.gui.state.position.moves.length === 1")
    first = animated(boards_drawn(page, 1)[0])
    assert (first["appeared"], sorted(first["flipped"]), first["removed"]) == ([move["move"]], sorted(turned), [])
    assert int(first["animations"][0]) >= 3 * (1 + len(turned))
    # Drawn again for the same position once the animation is over (the board flipped):
    # no animation again.
    page.wait_for_timeout(400)
    page.keyboard.press("f")
    page.wait_for_function("window.gui.state.flipped")
    assert animated(boards_drawn(page, 1)[-1])["animations"] == ["0"]
    # Back a ply: the move runs backwards.
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("window.gui.state.position.moves.length === 0")
    back = animated(boards_drawn(page, 0)[0])
    assert (back["removed"], sorted(back["flipped"]), back["appeared"]) == ([move["move"]], sorted(turned), [])

    # Unticked: no animation, and the page keeps the choice.
    page.click("#animate")
    assert not page.is_checked("#animate")
    assert page.evaluate("localStorage.getItem('engine-gui-animate')") == "off"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("window.gui.state.position.moves.length === 1")
    assert animated(boards_drawn(page, 1)[-1])["animations"] == ["0"]
    page.reload()
    page.wait_for_function("window.gui.state.position && window.gui.state.position.moves.length === 1")
    assert not page.is_checked("#animate")
    page.evaluate(KEEP_BOARDS)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("window.gui.state.position.moves.length === 0")
    assert all(animated(svg)["animations"] == ["0"] for svg in boards_drawn(page, 0))
    assert not page.errors
    page.close()

    calm = open_page(browser, gui, "othello", prepare=lambda page: page.emulate_media(reduced_motion="reduce"))
    assert not calm.is_checked("#animate")
    calm.close()
