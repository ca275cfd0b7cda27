"""The web GUI's page, served from the package: HTML, CSS and scripts in `static/`, run
as they are (no build step). `BOARD_SCRIPT` is the board drawing (board.js), which the
arena's replay page embeds too."""

from pathlib import Path

#: The folder of the page's files.
FOLDER = Path(__file__).parent / "static"
BOARD_SCRIPT = (FOLDER / "board.js").read_text(encoding="utf-8")
