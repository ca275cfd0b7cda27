"""docs/gui.md's pictures of the study, notes and explorer panels: `engine-gui` (with
the expert games of EXPERT-GAMES, its studies in a temporary folder) in Debian's
chromium driven by Playwright (the test extras). In GAME, MOVES are played by clicks,
the second move takes `!?` and a comment, a green arrow and a red circle are drawn on
it with the right button, a variation is made at the third, the study is saved, and
the page is pictured with the explorer and the study open.

    scripts/gui_panels GAME MOVES... --out PNG [--expert-games DIR] [--width 1400]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from tools.gui_tour import click_cells, gui_in_chromium, right_drag, screenshot

def play(page, move: str, plies: int) -> None:
    entry = page.evaluate(f"window.gui.state.position.legal.find(e => e.move === {move!r})")
    if entry is None:
        raise SystemExit(f"gui_panels: {move} is not legal after {plies - 1} plies")
    click_cells(page, entry["paths"][0])
    page.wait_for_function(f"window.gui.state.position.moves.length === {plies}", timeout=120_000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("moves", nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--expert-games", type=Path)
    parser.add_argument("--width", type=int, default=1400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data, gui_in_chromium(
            "gui_panels", "--studies", data, *(["--expert-games", str(args.expert_games)] if args.expert_games else []),
            env={**os.environ, "XDG_DATA_HOME": data}) as (address, instance):
        page = instance.new_context(viewport={"width": args.width, "height": 1000},
                                    bypass_csp=True).new_page()
        page.goto(address)
        page.wait_for_selector("#game option", state="attached")
        page.select_option("#game", args.game)
        page.wait_for_function(f"window.gui.state.position && window.gui.state.position.game === '{args.game}'",
                               timeout=120_000)
        page.click("button[data-mode='replay']")
        for ply, move in enumerate(args.moves, 1):
            play(page, move, ply)
        # A variation at the third move: the first other legal move.
        page.click("#moves button.move[data-ply='2']")
        page.wait_for_function("window.gui.state.ply === 2")
        other = page.evaluate(f"window.gui.state.position.legal.find(e => e.move !== {args.moves[2]!r}).move")
        play(page, other, 3)
        page.click("#moves button.move[data-ply='2']")
        page.wait_for_function("window.gui.state.ply === 2")
        page.click("#notes button.glyph[data-glyph='5']")
        page.fill("#comment", "Quiet, and the position stays closed.")
        cells = page.evaluate("Array.from(document.querySelectorAll('#board .cell')).map(c => c.dataset.cell)")
        legal = page.evaluate("window.gui.state.position.legal.map(e => e.arrow)")
        arrow = next(pair for pair in legal if len(pair) == 2)
        right_drag(page, arrow[0], arrow[1])
        right_drag(page, cells[len(cells) // 3], cells[len(cells) // 3], ("Shift",))
        page.click("#explorer-panel summary")
        page.click("#study-panel summary")
        page.fill("#study-name", f"{args.game} openings")
        page.fill("#chapter-name", "Main line")
        page.click("#study-new")
        page.wait_for_function("window.gui.state.study && window.gui.state.study.id"
                               " && !window.gui.state.study.dirty", timeout=60_000)
        if args.expert_games:  # the explorer's index, built the first time
            page.wait_for_function("document.getElementById('explorer-note').textContent"
                                   " && !document.getElementById('explorer-note').textContent"
                                   ".startsWith('building')", timeout=120_000)
        page.wait_for_timeout(500)
        page.evaluate("document.getElementById('message').textContent = ''")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        screenshot(page, args.out, full_page=True)
    print(f"gui_panels: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
