"""`engine-gui` as a browser meets it, without a browser: real `python -m
adapters.gui.main` processes, spoken to over real HTTP and WebSockets by aiohttp's client.

What it proves:
- the page and its scripts are served, with a Content-Security-Policy;
- a WebSocket from another site's page (its `Origin`) or from no page (no `Origin`),
  and any request addressed to a name other than the loopback (DNS rebinding), are
  refused without a token; with `--token`, nothing is served before the printed
  address (`?token=...`) sets the HTTP-only, same-site cookie, a wrong token is told
  so, and the cookie opens the WebSocket;
- `--host` off the loopback without `--token`, and an `--engine` address without a
  port, are usage errors (exit status 2, the reason on stderr);
- over the WebSocket: `hello` lists the five games; `show` gives the position's legal
  moves (the rules' own) with their click paths; an illegal move and every kind of
  malformed request get an `error` message and the tab goes on; `play` answers a legal
  `bestmove`; `load` reads a move list into a `record`; tabs past `--max-tabs`, even
  opened at once, are told the limit;
- with `--engine tcp://HOST:PORT`, the tabs are sessions of a real daemon there.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

import aiohttp
import pytest

from adapters.analysis.gamefile import LEAVE
from adapters.codingame import turn_format
from adapters.codingame.common import sorted_tokens
from games import find_game
from protocol import shared
from tests.conftest import TcpEngine, engine_command, random_game, run, stop_process
from tools.hostile import broken

GAMES = ("clobber", "othello", "loa", "isolation", "abalone")
#: How long a message may take (s): a game's first request loads its compiled code.
WAIT_S = 60
GUI = [sys.executable, "-m", "adapters.gui.main", "--port", "0", "--log-level", "warning"]


def interruptible() -> None:
    """In the child before it runs: Ctrl-C (SIGINT) at its default, as a terminal leaves
    it, whatever this test process's disposition has become: an ignored signal is
    inherited, and in the whole suite (never alone) the GUI was seen not to end on it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Gui:
    """A running `engine-gui --port 0` with `arguments`: `address` is the one it printed
    (with its token, if any), `base` the server's root, `port` its port."""

    def __init__(self, log: Path, *arguments: str):
        self.log = log
        with open(log, "w") as stderr:
            self.process = subprocess.Popen([*GUI, *arguments], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=stderr, text=True, preexec_fn=interruptible)
        line = self.process.stdout.readline()
        match = re.fullmatch(r"engine-gui: open (https?://\S+)\n", line)
        if match is None:
            self.stop()
            pytest.fail(f"engine-gui printed no address: {line!r}\n{log.read_text()}")
        self.address = match.group(1)
        parts = urlsplit(self.address)
        #: The page's origin, which its WebSockets carry.
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.base = self.origin + "/"
        self.port = parts.port

    def stop(self) -> None:
        stop_process(self.process)


@contextlib.contextmanager
def running_gui(log: Path, *arguments: str) -> Iterator[Gui]:
    gui = Gui(log, *arguments)
    try:
        yield gui
    finally:
        gui.stop()


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gui]:
    """An `engine-gui` on the test run's shared daemon, with no token."""
    with running_gui(tmp_path_factory.mktemp("gui") / "stderr.log") as server:
        yield server


def http_session() -> aiohttp.ClientSession:
    """A client that keeps cookies set for an IP address (the server's is 127.0.0.1)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def receive(ws: aiohttp.ClientWebSocketResponse) -> dict:
    return await ws.receive_json(timeout=WAIT_S)


async def receive_type(ws: aiohttp.ClientWebSocketResponse, kind: str) -> dict:
    """The next message of type `kind`, past those of others (an error fails)."""
    while True:
        message = await receive(ws)
        assert message["type"] in (kind, "position", "lines", "progress"), message
        if message["type"] == kind:
            return message


def open_socket(http: aiohttp.ClientSession, gui: Gui):
    """A tab's WebSocket connection, from the page (its `Origin`) as a browser opens it."""
    return http.ws_connect(gui.base + "ws", origin=gui.origin)


@contextlib.asynccontextmanager
async def tab(http: aiohttp.ClientSession, gui: Gui):
    """An open WebSocket of a tab, past its `hello`."""
    async with open_socket(http, gui) as ws:
        assert (await receive(ws))["type"] == "hello"
        yield ws


# ---- HTTP ----------------------------------------------------------------------------------


def test_the_page_and_its_scripts_are_served_with_a_content_security_policy(gui: Gui) -> None:
    async def check() -> None:
        async with http_session() as http:
            for path, kind in (("", "text/html"), ("static/app.js", "javascript"), ("static/logic.js", "javascript"),
                               ("static/board.js", "javascript")):
                async with http.get(gui.base + path) as response:
                    assert response.status == 200, path
                    assert kind in response.headers["Content-Type"]
                    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
                    assert await response.text()

    run(check())


def test_a_websocket_from_another_sites_page_is_refused(gui: Gui) -> None:
    async def check() -> None:
        async with http_session() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(gui.base + "ws", headers={"Origin": "http://evil.example"})
            assert refused.value.status == 403
            # The page's own origin is welcome.
            async with http.ws_connect(gui.base + "ws", headers={"Origin": gui.base.rstrip("/")}) as ws:
                assert (await receive(ws))["type"] == "hello"

    run(check())


def test_a_websocket_without_an_origin_is_refused(gui: Gui) -> None:
    """A browser always says which page opens a WebSocket: one that says none does not
    come from the page."""
    async def check() -> None:
        async with http_session() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(gui.base + "ws")
            assert refused.value.status == 403
            async with tab(http, gui) as ws:
                await ws.send_json({"op": "show", "seq": 1, "game": "clobber"})
                assert (await receive(ws))["type"] == "position"

    run(check())


def test_without_a_token_only_requests_to_the_loopback_are_served(gui: Gui) -> None:
    async def check() -> None:
        async with http_session() as http:
            for path in ("", "static/app.js", "ws"):
                async with http.get(gui.base + path, headers={"Host": f"evil.example:{gui.port}"}) as response:
                    assert response.status == 403, path
            async with http.get(gui.base, headers={"Host": f"localhost:{gui.port}"}) as response:
                assert response.status == 200

    run(check())


def test_malformed_requests_are_answered_400_and_logged_in_one_line(tmp_path: Path) -> None:
    """Any client can send malformed HTTP as often as it likes: each is refused and
    logged as one line saying what was wrong, not as an error with a traceback."""
    malformed = {
        "Duplicate 'Host' header": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n\r\n",
        "Got more than": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * 100_000 + b"\r\n\r\n",
    }

    async def check(gui: Gui) -> None:
        for data in malformed.values():
            reader, writer = await asyncio.open_connection("127.0.0.1", gui.port)
            writer.write(data)
            await writer.drain()
            assert (await asyncio.wait_for(reader.readline(), WAIT_S)).split()[1] == b"400"
            writer.close()
        async with http_session() as http, http.get(gui.base) as response:
            assert response.status == 200

    with running_gui(tmp_path / "stderr.log", "--log-level", "info") as gui:
        run(check(gui))
    log = gui.log.read_text().splitlines()
    assert not [line for line in log if "Traceback" in line or " ERROR " in line], log
    for said in malformed:
        (line,) = [line for line in log if said in line]
        assert " WARNING bad request: " in line and line.endswith("(Error handling request from 127.0.0.1)")


def test_with_a_token_nothing_is_served_before_the_printed_address_sets_the_cookie(tmp_path: Path) -> None:
    token = "0123456789abcdef" * 2
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)

    async def check(gui: Gui) -> None:
        assert gui.address == f"{gui.base}?token={token}"
        async with http_session() as http:
            for path in ("", "static/app.js"):
                async with http.get(gui.base + path) as response:
                    assert response.status == 403, path
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await open_socket(http, gui)
            assert refused.value.status == 403
            async with http.get(gui.base + "?token=wrong") as response:
                assert response.status == 401
                assert "wrong token" in await response.text()
            assert not http.cookie_jar.filter_cookies(gui.base)

            async with http.get(gui.address, allow_redirects=False) as response:
                assert response.status == 302 and response.headers["Location"] == "/"
                cookie = response.cookies["engine-gui-token"]
                assert cookie.value == token and cookie["httponly"] and cookie["samesite"] == "Strict"
            async with http.get(gui.base) as response:
                assert response.status == 200
            async with tab(http, gui) as ws:
                await ws.send_json({"op": "show", "seq": 1, "game": "othello"})
                assert (await receive(ws))["type"] == "position"

    with running_gui(tmp_path / "stderr.log", "--token", str(token_file)) as gui:
        run(check(gui))


def test_on_a_wildcard_host_the_printed_addresses_are_ones_to_open(tmp_path: Path) -> None:
    """`--host 0.0.0.0` listens on every address, which no browser opens: what is
    printed is the machine's host name first, and last the loopback, each with the
    token; the loopback one opens the page (no other address is tried from here)."""
    token = "0123456789abcdef" * 2
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    with running_gui(tmp_path / "stderr.log", "--host", "0.0.0.0", "--token", str(token_file)) as gui:
        assert gui.address == f"http://{socket.gethostname()}:{gui.port}/?token={token}"
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in gui.process.stdout], daemon=True).start()
        printed = [f"engine-gui: open {gui.address}"]
        while "127.0.0.1" not in printed[-1]:
            printed.append(lines.get(timeout=WAIT_S).rstrip("\n"))
        assert printed[-1] == f"engine-gui: or open http://127.0.0.1:{gui.port}/?token={token}"
        assert all(re.fullmatch(rf"engine-gui: (or )?open http://\S+:{gui.port}/\?token={token}", line)
                   for line in printed), printed
        assert not any("0.0.0.0" in line for line in printed), printed

        async def check() -> None:
            async with http_session() as http:
                async with http.get(printed[-1].split()[-1]) as response:
                    assert response.status == 200 and "text/html" in response.headers["Content-Type"]

        run(check())


def test_with_tls_the_page_and_its_websockets_are_served_over_https(tmp_path: Path) -> None:
    """`--tls-cert`/`--tls-key`, as the daemon takes them: the printed address is
    https://, the page comes over TLS to a client that checks the certificate (one made
    here for 127.0.0.1), its WebSocket over wss://; plain HTTP gets no page."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                           "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
                           "-addext", "subjectAltName=IP:127.0.0.1"], capture_output=True, timeout=60)
    if made.returncode != 0:
        pytest.skip(f"openssl cannot make a test certificate here: {made.stderr.decode(errors='replace')}")
    tls = ssl.create_default_context(cafile=str(cert))

    async def check(gui: Gui) -> None:
        assert gui.address == f"https://127.0.0.1:{gui.port}/"
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=tls)) as http:
            async with http.get(gui.base) as response:
                assert response.status == 200 and "text/html" in response.headers["Content-Type"]
            async with tab(http, gui) as ws:
                await ws.send_json({"op": "show", "seq": 1, "game": "clobber"})
                assert (await receive(ws))["type"] == "position"
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.ClientError):
                async with http.get(f"http://127.0.0.1:{gui.port}/") as response:
                    await response.read()

    with running_gui(tmp_path / "stderr.log", "--tls-cert", str(cert), "--tls-key", str(key)) as gui:
        run(check(gui))


@pytest.mark.parametrize("arguments, reason", [
    (["--host", "0.0.0.0"], "refusing to listen on 0.0.0.0 without --token"),
    (["--engine", "tcp://nohost"], "--engine takes tcp://HOST:PORT"),
    (["--max-tabs", "0"], "--max-tabs must be at least 1, got 0"),
    (["--tls-cert", "cert.pem"], "--tls-cert and --tls-key go together"),
    (["--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"],
     "engine-gui: cannot use the TLS certificate: "),
], ids=["host-without-token", "engine-without-port", "no-tabs", "cert-without-key", "no-cert-file"])
def test_usage_errors_exit_with_status_2_saying_why(arguments: list[str], reason: str) -> None:
    result = subprocess.run([*GUI, *arguments], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert reason in result.stderr
    assert "engine-gui: open" not in result.stdout


# ---- the WebSocket's requests ----------------------------------------------------------------


def test_hello_lists_the_five_games_with_their_sides(gui: Gui) -> None:
    async def check() -> None:
        async with http_session() as http, open_socket(http, gui) as ws:
            hello = await receive(ws)
        assert hello["type"] == "hello"
        assert sorted(entry["name"] for entry in hello["games"]) == sorted(GAMES)
        for entry in hello["games"]:
            rules = find_game(entry["name"])
            assert entry["sides"] == list(rules.side_names) and entry["names"] == list(rules.player_names)

    run(check())


def test_show_gives_the_rules_legal_moves_with_their_click_paths(gui: Gui) -> None:
    async def check() -> None:
        async with http_session() as http, tab(http, gui) as ws:
            for seq, game in enumerate(GAMES):
                moves = random_game(game, 3, seed=seq)
                await ws.send_json({"op": "show", "seq": seq, "game": game, "moves": moves})
                shown = await receive(ws)
                rules, style = find_game(game), turn_format(game).BOARD_STYLE
                state = rules.initial_state({})
                for move in moves:
                    state = state.play(rules.parse_move(state, move))
                assert shown["type"] == "position" and shown["seq"] == seq and shown["moves"] == moves
                assert shown["board_text"] == rules.format_board(state)
                assert shown["to_move"] == state.to_move
                assert shown["legal"] == [{"move": move, "paths": style.click_paths(move), "arrow": style.arrow(move)}
                                          for move in sorted_tokens(rules, state)]
                cells = {cell[0] for cell in shown["view"]["cells"]}
                assert {cell for entry in shown["legal"] for path in entry["paths"] for cell in path} <= cells
                assert shown["result"] is None

    run(check())


def test_an_illegal_move_is_answered_in_words(gui: Gui) -> None:
    async def check() -> None:
        async with http_session() as http, tab(http, gui) as ws:
            await ws.send_json({"op": "show", "seq": 7, "game": "clobber", "moves": ["a1b1"]})
            error = await receive(ws)
            assert error["type"] == "error" and error["seq"] == 7 and error["code"] == "illegal-move"
            assert error["text"].startswith("Illegal move")
            await ws.send_json({"op": "show", "seq": 8, "game": "clobber", "moves": []})
            assert (await receive(ws))["type"] == "position"

    run(check())


def test_a_game_too_long_for_the_engines_line_is_refused_in_words_before_it_is_sent(gui: Gui) -> None:
    """2000 moves of 64 characters pass the request's own bounds but make a `position`
    line past the protocol's MAX_LINE_BYTES: the tab says so in words, sends nothing
    the engine would refuse as a malformed line, and goes on."""
    from protocol.parse import MAX_LINE_BYTES

    async def check() -> None:
        async with http_session() as http, tab(http, gui) as ws:
            for op in ("show", "play", "analyse"):
                await ws.send_json({"op": op, "seq": 1, "game": "clobber", "moves": ["a1" * 32] * 2000,
                                    "movetime": 100})
                error = await receive(ws)
                assert error["type"] == "error" and error["code"] == "request", error
                assert error["text"].startswith("the game is too long for the engine: its position line would take ")
                assert f"more than the {MAX_LINE_BYTES} of a line" in error["text"]
            await ws.send_json({"op": "show", "seq": 2, "game": "clobber", "moves": ["a2a3"]})
            assert (await receive(ws))["type"] == "position"

    run(check())


@pytest.mark.parametrize("request_text", [
    "not JSON",
    "[1, 2]",
    "[" * 100_000 + "]" * 100_000,
    json.dumps({"op": "castle", "seq": 1, "game": "clobber"}),
    json.dumps({"op": "show", "seq": 1, "game": "clobber", "moves": ["a1a2"] * 5000}),
    json.dumps({"op": "show", "seq": 1, "game": "no game"}),
    json.dumps({"op": "play", "seq": 1, "game": "clobber", "movetime": -5}),
], ids=["text", "list", "nested-too-deep", "unknown-op", "5000-moves", "bad-game-name", "bad-movetime"])
def test_a_malformed_request_gets_an_error_and_the_tab_goes_on(gui: Gui, request_text: str) -> None:
    async def check() -> None:
        async with http_session() as http, tab(http, gui) as ws:
            await ws.send_str(request_text)
            error = await receive(ws)
            assert error["type"] == "error" and error["code"] == "request" and error["text"], error
            await ws.send_json({"op": "show", "seq": 2, "game": "loa"})
            shown = await receive(ws)
            assert shown["type"] == "position" and shown["seq"] == 2

    run(check())


def test_play_answers_a_legal_bestmove_in_its_movetime(gui: Gui) -> None:
    async def check() -> None:
        async with http_session() as http, tab(http, gui) as ws:
            await ws.send_json({"op": "play", "seq": 3, "game": "othello", "movetime": 100})
            shown = await receive_type(ws, "position")
            answer = await receive_type(ws, "bestmove")
            assert answer["seq"] == 3
            assert answer["move"] in {entry["move"] for entry in shown["legal"]}
            after = await receive_type(ws, "position")
            assert after["moves"] == [answer["move"]]

    run(check())


def test_load_reads_a_move_list_into_a_record(gui: Gui) -> None:
    moves = random_game("clobber", 8, seed=5)

    async def check() -> None:
        async with http_session() as http, tab(http, gui) as ws:
            await ws.send_json({"op": "load", "seq": 4, "text": f"setgame clobber\n{' '.join(moves)}\n"})
            record = await receive(ws)
            assert record["type"] == "record" and record["seq"] == 4
            assert record["game"] == "clobber" and record["moves"] == moves and record["start"] is None
            await ws.send_json({"op": "load", "seq": 5, "text": "setgame clobber\na1b1\n"})
            error = await receive(ws)
            assert error["type"] == "error" and error["text"].startswith("Cannot read the record")

    run(check())


def test_a_record_nested_too_deep_is_a_bad_record(gui: Gui) -> None:
    """However malformed, a record's load is refused in words, and the tab goes on."""
    moves = random_game("clobber", 4, seed=2)

    async def check() -> None:
        async with http_session() as http, tab(http, gui) as ws:
            deep = '{"game": "clobber", "moves": ' + "[" * 100_000 + "]" * 100_000 + "}"
            await ws.send_json({"op": "load", "seq": 1, "text": deep, "name": "deep.json"})
            error = await receive(ws)
            assert error == {"type": "error", "seq": 1, "code": "request",
                             "text": "Cannot read the record: deep.json: its JSON is nested too deep to read"}
            await ws.send_json({"op": "load", "seq": 2, "text": f"setgame clobber\n{' '.join(moves)}\n"})
            record = await receive(ws)
            assert record["type"] == "record" and record["moves"] == moves

    run(check())


def test_a_record_where_a_player_leaves_is_replayed_and_analysed(gui: Gui) -> None:
    rules = find_game("isolation")
    line = random_game("isolation", 8, seed=3, leave_at=2)  # the third player times out at its first turn
    moves = [move for move in line if move != LEAVE]
    start = rules.format_board(rules.initial_state({}))
    state = rules.parse_board(start.split())
    for move in line:
        state = turn_format("isolation").leave(state, state.to_move) if move == LEAVE else \
            state.play(rules.parse_move(state, move))
    record = {"game": "isolation", "start": start, "moves": [{"move": move} for move in moves],
              "events": [{"at": 2, "player": 2, "event": "timeout"}]}

    async def check() -> None:
        async with http_session() as http, tab(http, gui) as ws:
            await ws.send_json({"op": "load", "seq": 1, "text": json.dumps(record)})
            loaded = await receive(ws)
            assert loaded["type"] == "record" and loaded["moves"] == line and loaded["start"] == start
            game = {"game": "isolation", "start": start}
            await ws.send_json({"op": "show", "seq": 2, **game, "moves": line})
            shown = await receive(ws)
            assert shown["type"] == "position" and shown["moves"] == line
            assert shown["board_text"] == rules.format_board(state) and shown["to_move"] == state.to_move
            assert shown["last"] == turn_format("isolation").BOARD_STYLE.marks(line[-1])
            await ws.send_json({"op": "show", "seq": 3, **game, "moves": line[:3]})
            shown = await receive(ws)
            assert shown["board_text"].endswith(" r alive=rg out=b") and shown["last"] == []
            await ws.send_json({"op": "analyse_game", "seq": 4, **game, "moves": line, "depth": 1, "top": 1})
            analysis = await receive_type(ws, "game_analysis")
            assert len(analysis["plies"]) == len(line) and analysis["plies"][2] is None
            assert [ply["played"] for ply in analysis["plies"] if ply is not None] == moves
            await ws.send_json({"op": "show", "seq": 5, "game": "othello", "moves": [LEAVE]})
            error = await receive(ws)
            assert error["type"] == "error" and error["text"].startswith("Cannot follow the game: move 1 (leave)")

    run(check())


def test_tabs_past_max_tabs_are_told_the_limit_even_when_they_open_at_once(tmp_path: Path) -> None:
    async def first_message(http: aiohttp.ClientSession, gui: Gui) -> tuple[aiohttp.ClientWebSocketResponse, dict]:
        ws = await open_socket(http, gui)
        return ws, await receive(ws)

    async def check(gui: Gui) -> None:
        async with http_session() as http:
            opened = await asyncio.gather(*(first_message(http, gui) for _ in range(3)))
            messages = [message for _, message in opened]
            assert sorted(message["type"] for message in messages) == ["error", "error", "hello"], messages
            for message in messages:
                if message["type"] == "error":
                    assert message["code"] == "busy" and "--max-tabs" in message["text"]
            for ws, _ in opened:
                await ws.close()

    with running_gui(tmp_path / "stderr.log", "--max-tabs", "1") as gui:
        run(check(gui))


def test_with_engine_the_tabs_are_sessions_of_the_daemon_there(tmp_path: Path) -> None:
    daemon = TcpEngine()

    async def check(gui: Gui) -> None:
        async with http_session() as http:
            async with tab(http, gui) as ws:
                await ws.send_json({"op": "show", "seq": 1, "game": "isolation"})
                shown = await receive(ws)
                assert shown["type"] == "position" and shown["legal"]
            daemon.stop()
            async with open_socket(http, gui) as ws:
                refused = await receive(ws)
            assert refused["type"] == "error" and refused["text"].startswith("cannot open an engine session")

    try:
        with running_gui(tmp_path / "stderr.log", "--engine", f"tcp://127.0.0.1:{daemon.port}") as gui:
            run(check(gui))
    finally:
        daemon.stop()


@pytest.mark.parametrize("private", [False, True])
def test_tabs_are_sessions_of_the_shared_daemon_unless_private(private: bool, tmp_path: Path, runtime: Path) -> None:
    """By default a tab is a session of the user's shared daemon (started by the first
    tab where none runs); with `--private` the engine runs in the GUI's process."""

    async def check(gui: Gui) -> None:
        async with http_session() as http, tab(http, gui) as ws:
            await ws.send_json({"op": "play", "seq": 1, "game": "clobber", "movetime": 100})
            await receive_type(ws, "bestmove")
            found = shared.status(runtime)
            if private:
                assert found == []
            else:
                (daemon,) = found
                assert daemon.figures.sessions == 1

    with running_gui(tmp_path / "stderr.log", *(["--private"] if private else [])) as gui:
        run(check(gui))
    assert "cannot be used" not in (tmp_path / "stderr.log").read_text()


@pytest.mark.parametrize("way", ["full", "flood"])
def test_a_shared_daemon_that_cannot_serve_leaves_the_tab_to_an_engine_in_the_gui(
        way: str, tmp_path: Path, runtime: Path) -> None:
    """A daemon that floods its answer, or cannot load the tab's game (`error busy
    setgame no room ...`), is said in the log, and the tab plays on an engine in the
    GUI's process."""
    async def check(gui: Gui) -> None:
        async with http_session() as http, tab(http, gui) as ws:
            await ws.send_json({"op": "play", "seq": 1, "game": "clobber", "movetime": 100})
            await receive_type(ws, "bestmove")

    with broken(way, engine_command()):
        with running_gui(tmp_path / "stderr.log") as gui:
            run(check(gui))
    said = {"full": "the shared engine daemon cannot load clobber (error busy setgame no room for",
            "flood": "the shared engine daemon cannot be used (it answered isready with"}[way]
    assert said in (tmp_path / "stderr.log").read_text()
