"""A whole session of the web GUI in every game, as a user has one: play a game to its end
against the engine by clicking, analyse the whole game, replay it, analyse a position of
it; in Debian's chromium driven by Playwright (the test extras). With `--shots`, each
game's analysis and replay views are saved at a phone's width and a wide screen's
(docs/gui.md shows them); the browser tests run the same tour and check that it leaves
no page error and no server error.

    scripts/gui_tour [--shots docs/gui] [--games NAME,NAME] [--movetime 20]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

from games import all_games

ROOT = Path(__file__).resolve().parent.parent
#: The screenshots' window sizes: a phone's and a wide screen's.
WIDTHS = ((390, 844), (1920, 1080))
#: How long the page may take to answer (s): the first request of a game loads its code.
WAIT_S = 60
#: A game longer than this many plies is not played to its end.
MAX_PLIES = 400


def click_cells(page, path: list[str]) -> None:
    """Click the cells of `path` in turn, each found and clicked in one step (the board
    is drawn again as answers come in)."""
    for cell in path:
        selector = f".cell[data-cell='{cell}']"
        page.wait_for_selector(selector, state="attached")
        page.evaluate("selector => document.querySelector(selector)"
                      ".dispatchEvent(new MouseEvent('click', {bubbles: true}))", selector)


def right_drag(page, start: str, end: str, modifiers: tuple[str, ...] = ()) -> None:
    """Draw with the right button from cell `start` to cell `end`, holding `modifiers`;
    each cell's place measured in one step (the board is drawn anew as answers come)."""
    def centre(cell: str) -> tuple[float, float]:
        box = page.evaluate("selector => { const r = document.querySelector(selector).getBoundingClientRect();"
                            " return [r.x + r.width / 2, r.y + r.height / 2]; }", f".cell[data-cell='{cell}']")
        return box[0], box[1]

    for key in modifiers:
        page.keyboard.down(key)
    page.mouse.move(*centre(start))
    page.mouse.down(button="right")
    page.mouse.move(*centre(end), steps=4)
    page.mouse.up(button="right")
    for key in modifiers:
        page.keyboard.up(key)


def screenshot(page, path: Path, full_page: bool) -> None:
    """Save the page at `path` as a PNG of at most 256 colours (Pillow, with matplotlib
    in the test extras): a third of the size, the same to the eye for a page of flat
    colours."""
    from PIL import Image

    page.screenshot(path=str(path), full_page=full_page)
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(256)
    small.save(path, optimize=True)


def tour(page, game: str, seed: int = 1, movetime: int = 20, shots: Path | None = None) -> int:
    """Play `game` to its end on `page` (engine-gui, opened), the user's moves drawn at
    random (`seed`) and clicked, the engine's at `movetime` ms; analyse the whole game,
    step through it, analyse a position of it; with `shots`, save the analysis and
    replay views at each of WIDTHS there. Returns the game's plies."""
    wait = WAIT_S * 1000
    chance = random.Random(seed)
    page.select_option("#game", game)
    page.wait_for_function(f"window.gui.state.position && window.gui.state.position.game === '{game}'", timeout=wait)
    page.click("button[data-mode='play']")
    page.fill("#movetime", str(movetime))
    page.set_checked("#ponder", True)
    seat = page.evaluate("window.gui.state.position.to_move")
    page.select_option("#seat", str(seat))
    page.click("#new-game")
    settled = (f"!window.gui.state.thinking && window.gui.state.position.moves.length === window.gui.state.line.length"
               f" && (window.gui.state.position.result !== null || window.gui.state.position.to_move === {seat})")
    page.wait_for_function(settled + " && window.gui.state.line.length === 0", timeout=wait)
    while page.evaluate("window.gui.state.position.result") is None:
        plies = page.evaluate("window.gui.state.line.length")
        if plies >= MAX_PLIES:
            break
        paths = chance.choice(page.evaluate("window.gui.state.position.legal"))["paths"]
        if paths and paths[0]:
            click_cells(page, paths[0])
        else:
            page.click("#pass")  # a move of no cells
        page.wait_for_function(settled + f" && window.gui.state.line.length > {plies}", timeout=wait)
    plies = page.evaluate("window.gui.state.line.length")

    page.click("button[data-mode='replay']")
    page.fill("#replay-movetime", str(movetime))
    page.click("#analyse-game")
    page.wait_for_selector("#graph svg.graph", timeout=wait * 4)
    page.keyboard.press("Home")
    page.wait_for_function("window.gui.state.position.moves.length === 0", timeout=wait)
    for ply in range(1, min(plies, 4) + 1):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"window.gui.state.position.moves.length === {ply}", timeout=wait)
    middle = max(1, plies // 2)
    page.click(f"#moves button.move[data-ply='{middle}']")
    page.wait_for_function(f"window.gui.state.position.moves.length === {middle}", timeout=wait)
    if shots:
        for width, height in WIDTHS:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(300)
            screenshot(page, shots / f"{game}-replay-{width}.png", width < 1000)
    page.click("button[data-mode='analyse']")
    page.wait_for_function("document.querySelectorAll('#lines tr.pv').length >= 1 && window.gui.state.search",
                           timeout=wait)
    if shots:
        page.wait_for_timeout(1500)
        for width, height in WIDTHS:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(500)
            screenshot(page, shots / f"{game}-analysis-{width}.png", width < 1000)
    page.keyboard.press("Space")
    page.wait_for_function("!window.gui.state.analysing", timeout=wait)
    return plies


@contextlib.contextmanager
def gui_in_chromium(tool: str, *arguments: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, object]]:
    """A running `engine-gui --port 0` (with `arguments`, in `env`) and a chromium
    (Debian's, driven by Playwright): (the address it printed, the browser). Both end
    with the block. Exits saying so where no chromium is installed."""
    browser = shutil.which("chromium")
    if browser is None:
        raise SystemExit(f"{tool}: no chromium installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    gui = subprocess.Popen([sys.executable, "-m", "adapters.gui.main", "--port", "0", "--log-level", "warning",
                            *arguments], cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env)
    try:
        address = re.search(r"http://\S+", gui.stdout.readline()).group(0)
        with sync_playwright() as playwright:
            instance = playwright.chromium.launch(executable_path=browser, args=["--no-sandbox"])
            try:
                yield address, instance
            finally:
                instance.close()
    finally:
        gui.terminate()
        gui.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=Path, help="a folder for the screenshots")
    parser.add_argument("--games", default=",".join(all_games()), help="the games, by name (default: all)")
    parser.add_argument("--movetime", type=int, default=20, help="the engine's ms a move and a position analysed")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with gui_in_chromium("gui_tour") as (address, instance):
        page = instance.new_context(viewport={"width": 1100, "height": 820}, bypass_csp=True).new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(address)
        page.wait_for_selector("#game option", state="attached", timeout=WAIT_S * 1000)
        for game in args.games.split(","):
            plies = tour(page, game, args.seed, args.movetime, args.shots)
            print(f"{game}: {plies} plies played, analysed and replayed", flush=True)
    for error in errors:
        print(f"page error: {error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
