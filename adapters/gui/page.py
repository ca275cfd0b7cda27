"""The web GUI's page, served from the package: HTML, CSS and scripts in `static/`, run
as they are (no build step), and the board drawing it shares with the replay pages
(`adapters.view.board.SCRIPT_FILE`), served as `static/board.js` beside them."""

from pathlib import Path

#: The folder of the page's files.
FOLDER = Path(__file__).parent / "static"
