"""The README's picture of the web GUI: `engine-gui` analysing GAME's position after
args.moves with three lines, in Debian's chromium driven by Playwright (the test extras). The
README's: `scripts/gui_screenshot GAME f5 d6 c3 d3 c4 f4 f6 f3 e6 e7 c6` with the game
of the eight-by-eight board whose first move is f5.

    scripts/gui_screenshot GAME args.moves... [--out docs/gui-analysis.png] [--seconds 4]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tools.gui_tour import ROOT, gui_in_chromium


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("moves", nargs="+")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "gui-analysis.png")
    parser.add_argument("--seconds", type=float, default=4.0, help="how long the analysis runs first")
    args = parser.parse_args()
    with gui_in_chromium("gui_screenshot") as (address, instance):
        page = instance.new_context(viewport={"width": 1100, "height": 660}, bypass_csp=True).new_page()
        page.goto(address)
        page.wait_for_selector("#game option", state="attached")
        page.select_option("#game", args.game)
        page.wait_for_function("window.gui.state.position && window.gui.state.position.game === '" + args.game + "'")
        page.click("button[data-mode='replay']")
        record = ROOT / "analysis-out" / "gui-screenshot.txt"
        record.parent.mkdir(exist_ok=True)
        record.write_text(f"setgame {args.game}\n" + " ".join(args.moves) + "\n")
        page.set_input_files("#record-file", str(record))
        page.wait_for_function(f"window.gui.state.line.length === {len(args.moves)}")
        page.keyboard.press("End")
        page.click("button[data-mode='analyse']")
        page.wait_for_function("document.querySelectorAll('#board g.pv-mark').length >= 3", timeout=60000)
        time.sleep(args.seconds)
        page.click("#eval-panel summary")
        page.screenshot(path=str(args.out))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
