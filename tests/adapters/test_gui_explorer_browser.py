"""The opening explorer in engine-gui, in a real headless Chromium against a real
`engine-gui` that indexes the WTHOR expert games in place: after f5 d6, clicked on the
board, it lists the moves the expert games played with counts the test makes from the
files' bytes; a click on one plays it; a game without expert games says so."""

from __future__ import annotations

import numpy as np
import pytest

from tests.adapters import test_gui_browser as pages
from tests.adapters.test_gui_browser import WAIT_S, open_page, state
from tests.conftest import EXPERT_GAMES
from tools.gui_tour import click_cells

#: The running engine-gui and the browser, the fixtures of the other browser tests.
gui, browser = pages.gui, pages.browser


def expert_counts(first: str, second: str) -> dict[str, int]:
    """The third moves of the WTHOR games that open `first` `second`, counted from the
    files' bytes (a move byte is 10 x row + column, a1 = 11)."""
    def code(square: str) -> int:
        return 10 * int(square[1]) + "abcdefgh".index(square[0]) + 1

    games = np.concatenate([np.frombuffer(path.read_bytes()[16:], dtype=np.uint8).reshape(-1, 68)
                            for path in sorted(EXPERT_GAMES.glob("WTH_*.wtb"))])
    chosen = games[(games[:, 8] == code(first)) & (games[:, 9] == code(second))]
    return {"abcdefgh"[value % 10 - 1] + str(value // 10): int((chosen[:, 10] == value).sum())
            for value in np.unique(chosen[:, 10]).tolist()}


def play(page, move: str, plies: int) -> None:
    entry = next(item for item in state(page, "position.legal") if item["move"] == move)
    click_cells(page, entry["paths"][0])
    page.wait_for_function(f"window.gui.state.position.moves.length === {plies}", timeout=WAIT_S * 1000)


def test_the_explorer_lists_the_expert_moves_after_f5_d6(browser, gui: str) -> None:
    if not EXPERT_GAMES.is_dir():
        pytest.skip(f"the WTHOR expert games are not at {EXPERT_GAMES}")
    expected = expert_counts("f5", "d6")
    page = open_page(browser, gui, "othello")
    page.click("button[data-mode='analyse']")
    page.keyboard.press("Space")  # no analysis: the explorer alone
    page.click("#explorer-panel summary")
    play(page, "f5", 1)
    play(page, "d6", 2)
    # The first request builds the index (seconds), then the answer comes.
    page.wait_for_function("document.querySelectorAll('#explorer-moves tr.explored:not(.book-only)').length > 0"
                           " && window.gui.state.position.moves.length === 2", timeout=3 * WAIT_S * 1000)
    rows = page.eval_on_selector_all("#explorer-moves tr.explored:not(.book-only)",
                                     "rows => rows.map(r => [r.dataset.move, +r.cells[1].textContent])")
    assert dict(rows) == expected
    assert [count for _, count in rows] == sorted(expected.values(), reverse=True)
    assert page.inner_text("#explorer-note").startswith(f"{sum(expected.values())} expert games reached this position")
    # A click on the most played move plays it, and the explorer follows.
    best = rows[0][0]
    page.click(f"#explorer-moves tr[data-move='{best}'] button")
    page.wait_for_function(f"window.gui.state.position.moves.join(' ') === 'f5 d6 {best}'")
    page.wait_for_function("document.getElementById('explorer-note').textContent.includes('(ply 3)')",
                           timeout=WAIT_S * 1000)
    page.select_option("#game", "clobber")
    page.wait_for_function("document.getElementById('explorer-note').textContent.includes('no expert games')",
                           timeout=WAIT_S * 1000)
    assert not page.errors
    page.close()
