"""The web server of `engine-gui` (aiohttp): the page's files, and a WebSocket per tab,
each bridged to an engine session of its own (adapters/gui/tab.py).

Safe to expose like the daemon's TCP port:
- with a token, the page must first be opened at the address with `?token=...` (which
  sets a same-site, HTTP-only cookie); every later request and WebSocket needs it;
- without one, the server answers only requests addressed to the loopback (a `Host` of
  `localhost` or a loopback address): a page of another site cannot reach it through a
  name that resolves to this machine (DNS rebinding);
- a WebSocket must come from the page itself: its `Origin` is the server's (a browser
  always sends one; a request without it is refused too);
- messages are at most MAX_MESSAGE bytes, tabs at most `max_tabs` at once;
- served over TLS as the daemon is (`--tls-cert`, `--tls-key`: adapters/gui/main.py),
  the token and its cookie never cross the network in clear text.
"""

from __future__ import annotations

import hmac
import json
import logging
from typing import Awaitable, Callable
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.log import server_logger

from adapters.codingame import turn_format
from adapters.gui.explorer import Explorer
from adapters.gui.page import FOLDER
from adapters.gui.studies import Studies
from adapters.gui.tab import Tab
from adapters.view.board import SCRIPT_FILE
from daemon.main import is_loopback
from games import find_game
from protocol.client import Engine, EngineClosed, EngineError

LOG = logging.getLogger("engine.gui")

COOKIE = "engine-gui-token"
#: The largest message a page may send (a game record to load is the largest).
MAX_MESSAGE = 4 << 20
DEFAULT_MAX_TABS = 16
#: The characters of a bad request's description that its log line keeps.
MAX_LOGGED = 200
#: The WebSockets of the tabs served.
TABS = web.AppKey("tabs", set)


class BadRequestsInOneLine(logging.Filter):
    """Makes aiohttp's record of a malformed request (two `Host` headers, a header line
    past its limit: any client can send them, as often as it likes) one WARNING line
    that says what was wrong, where aiohttp writes an ERROR and a traceback. The client
    is at fault, not the server: every other record, a fault of ours with its
    traceback, passes unchanged."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            said = " ".join(str(error.message).split())[:MAX_LOGGED]
            record.msg, record.args = "bad request: %s (%s)", (
                "".join(char if char.isprintable() else "?" for char in said), record.getMessage())
            record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
            record.exc_info = record.exc_text = None
        return True


_BAD_REQUESTS = BadRequestsInOneLine()


def _is_loopback_host(host: str) -> bool:
    """Whether a request's `Host` (a name or address, and a port) is the loopback."""
    return is_loopback(urlsplit(f"//{host}").hostname or "")


def make_app(open_engine: Callable[[], Awaitable[Engine]], token: str | None = None,
             max_tabs: int = DEFAULT_MAX_TABS,
             own_engine: Callable[[], Awaitable[Engine]] | None = None,
             studies: Studies | None = None, explorer: Explorer | None = None) -> web.Application:
    """The GUI's web application: `open_engine` opens a new engine session for each tab;
    `own_engine`, where those are the shared daemon's, one of an engine in this process
    for a tab whose game the daemon cannot load (`Tab`); `studies` the studies kept for
    every tab and `explorer` the opening explorer (None: none). aiohttp's server log gets
    BadRequestsInOneLine."""
    server_logger.addFilter(_BAD_REQUESTS)

    def allowed(request: web.Request) -> bool:
        if token is None:
            return _is_loopback_host(request.host)
        given = request.cookies.get(COOKIE, "")
        return hmac.compare_digest(given.encode(), token.encode())

    @web.middleware
    async def guard(request: web.Request, handler):
        if request.path == "/" and token is not None and "token" in request.query:
            if not hmac.compare_digest(request.query["token"].encode(), token.encode()):
                LOG.warning("wrong token from %s", request.remote)
                raise web.HTTPUnauthorized(text="wrong token: open the address engine-gui printed\n")
            response = web.HTTPFound("/")
            response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", secure=request.secure)
            raise response
        if not allowed(request):
            LOG.warning("refused %s %s from %s", request.method, request.path, request.remote)
            raise web.HTTPForbidden(text="open the address engine-gui printed\n")
        response = await handler(request)
        response.headers.setdefault("Content-Security-Policy",
                                    "default-src 'self'; style-src 'self'; img-src 'self' data:;"
                                    " connect-src 'self'; frame-ancestors 'none'")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    async def index(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(FOLDER / "index.html", headers={"Cache-Control": "no-store"})

    async def board_script(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(SCRIPT_FILE)

    async def socket(request: web.Request) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin is None:
            LOG.warning("refused a WebSocket without an Origin from %s", request.remote)
            raise web.HTTPForbidden(text="a WebSocket must come from the page\n")
        if urlsplit(origin).netloc != request.host:
            LOG.warning("refused a WebSocket from the page of %s", origin)
            raise web.HTTPForbidden(text="a WebSocket from another site\n")
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30)
        await ws.prepare(request)
        tabs = request.app[TABS]
        if len(tabs) >= max_tabs:
            await ws.send_json({"type": "error", "seq": None, "code": "busy",
                                "text": f"{len(tabs)} tabs are open, engine-gui's limit (--max-tabs)"})
            await ws.close()
            return ws
        # The tab counts from here, before anything is awaited: a tab that connects while
        # this one's engine session opens finds it counted.
        tabs.add(ws)
        try:
            await serve_tab(ws)
        finally:
            tabs.discard(ws)
        return ws

    async def serve_tab(ws: web.WebSocketResponse) -> None:
        """Bridge the WebSocket of a tab to an engine session of its own until either closes."""
        engine = None
        try:
            engine = await open_engine()
            games = (await engine.ask("games", "games"))[-1].split()[1:]
        except (OSError, EngineClosed, EngineError) as error:
            if engine is not None:
                await engine.close()
            await ws.send_json({"type": "error", "seq": None, "code": "closed",
                                "text": f"cannot open an engine session: {error}"})
            await ws.close()
            return

        async def send(message: dict) -> None:
            if not ws.closed:
                await ws.send_str(json.dumps(message, separators=(",", ":")))

        tab = Tab(engine, send, own_engine, studies, explorer)
        try:
            await send({"type": "hello", "games": [game_entry(name) for name in games]})
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    request = json.loads(message.data)
                except (ValueError, RecursionError):  # not JSON, or nested too deep to read
                    request = None
                await tab.submit(request)
        finally:
            await tab.close()

    app = web.Application(middlewares=[guard], client_max_size=MAX_MESSAGE)
    app[TABS] = set()
    app.router.add_get("/", index)
    app.router.add_get("/ws", socket)
    # The board drawing is the view's, shared with the replay pages; the page finds it
    # beside its own files.
    app.router.add_get("/static/board.js", board_script)
    app.router.add_static("/static/", FOLDER, append_version=False)
    return app


def game_entry(name: str) -> dict:
    """What the page knows of a game: its name, its sides and their names in the board
    text, and the letters a cell cycles through when a board is edited."""
    rules = find_game(name)
    return {"name": name, "sides": list(rules.side_names), "names": list(rules.player_names),
            "cycle": turn_format(name).BOARD_STYLE.edit_cycle(rules.player_names)}
