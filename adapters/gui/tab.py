"""One browser tab: its requests, carried out as commands of its own engine session, and
what the engine answers, as messages for the page.

The page holds the game (`Game`: the game's name, the board text it starts from, the
moves played, with `leave` where a player left a recorded game of more players) and
sends it with each request, so that a tab that reconnects, to this server or to a new
one, carries on where it was. The engine thinks; this module only frames its commands
and reads its replies. Requests (JSON objects, `op` naming each):

    show          the position: its board, legal moves, result and evaluation
    play          the engine moves in the position (`movetime` ms), pondering on the
                  human's time afterwards when `ponder` is set and `human` is to move
    analyse       infinite analysis of the position, `multipv` lines
    stop          stop what is running (a search in play answers at once)
    load          read a game record (`text`): an SGF collection's first game with its
                  tree (variations, comments, glyphs, shapes), a game's own format
                  (GGF, a transcript), or an arena record, a CodinGame replay or a move
                  list, as engine-analyse reads them
    export        the page's game tree (`tree`, with `game`, `start` and `headers`) as
                  an SGF record (`adapters.gui.trees`)
    study         list, open, save (a new name renames), delete, import or export
                  (`action`) the studies kept (`adapters.gui.studies`)
    explore       the opening explorer's moves from the position `board` of `game`
                  (`adapters.gui.explorer`): answered beside any search, a newer
                  request replacing one not answered yet
    analyse_game  the analysis of every ply of the game (`movetime` ms or `depth`, `top`
                  lines), as engine-analyse computes it, with its progress, and each
                  player's summary (inaccuracies, mistakes, blunders, accuracy)

Each request carries a `seq` that its messages repeat, so that the page can drop the
answers to what it no longer shows. Requests are carried out one at a time, in order;
a new one first stops a search still running for an older one (analysis goes on until
then). Messages (`type`): `position`, `lines` (the last whole set of an analysis's
lines, all of one depth: lines of two depths are never compared), `bestmove`,
`record` (with the record's `tree` and `headers` where it has them), `export` (the
SGF `text`), `studies`, `study`, `study_saved`, `explorer`, `progress`,
`game_analysis`, `stopped`, and `error`, whose `text` says in words what the engine
(or the request) got wrong.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

import attrs

from adapters.analysis.analyse import ANALYSIS_OPTIONS, Stopped, analyse_game
from adapters.analysis.gamefile import Game as RecordedGame
from adapters.analysis.gamefile import LEAVE, played_game, position_after, read_game_text
from adapters.codingame import turn_format
from adapters.gui.explorer import Explorer
from adapters.gui.studies import Studies
from adapters.gui.studies import answer as study_answer
from adapters.gui.trees import players_of, read_tree_records, sgf_of_tree, tree_message
from adapters.view.engine import engine_view
from games import all_games, find_game
from protocol.client import Engine, EngineClosed, EngineError, Limit
from protocol.errors import no_room_for_game
from protocol.info import Info, LineSets
from protocol.parse import MAX_LINE_BYTES

LOG = logging.getLogger("engine.gui")

#: The most moves, characters of a move and of a board text, a request may carry.
MAX_MOVES = 2000
MAX_MOVE_TOKEN = 64
MAX_BOARD = 4096
#: The bytes a `position` line takes for the moves a play adds to the game (the
#: engine's move and the reply it ponders on).
PLAY_ROOM = len(" moves") + 2 * (1 + MAX_MOVE_TOKEN)
#: Requests waiting behind the one being carried out; the oldest waiting one is
#: dropped past this (the page only wants the latest).
MAX_WAITING = 16
#: At most this many `lines` messages a second go to the page from one analysis (a
#: newer set replaces one not sent yet; the last of a search always goes).
LINES_RATE = 20
#: How long closing a tab waits for its request to end, and then for its engine session.
CLOSE_WAIT_S = 10
#: The options of a session that plays: the opening book on (`ANALYSIS_OPTIONS` has it
#: off, for analyses the same whoever runs them).
PLAY_OPTIONS = {"OwnBook": True}

#: What an engine error code means, in words, for the page.
ERROR_WORDS = {
    "illegal-move": "Illegal move",
    "bad-position": "The board text is not valid",
    "bad-value": "Not accepted",
    "syntax": "Malformed command",
    "no-game": "No game is selected",
    "busy": "The engine is busy",
    "unsupported": "Not supported",
    "io": "File error",
    "internal": "The engine failed",
    "unknown-command": "Unknown command",
}


class RequestError(ValueError):
    """A request the page should not have sent; its text is shown as it is."""


@attrs.frozen
class Game:
    """A game as the page holds it: `start` the board text it starts from (None: the
    game's start position), then `moves`, where `LEAVE` is the player to move leaving
    the game."""

    name: str
    start: str | None
    moves: tuple[str, ...]

    @classmethod
    def of(cls, request: dict) -> "Game":
        """The game a request names; raises RequestError, for a game whose `position`
        line (with the moves a play adds) the engine would refuse as too long too."""
        name, start, moves = request.get("game"), request.get("start"), request.get("moves", [])
        if not isinstance(name, str) or not name.isidentifier():
            raise RequestError("no game named")
        if start is not None and (not isinstance(start, str) or len(start) > MAX_BOARD or "\n" in start):
            raise RequestError("the board text must be one line of at most 4096 characters")
        if (not isinstance(moves, list) or len(moves) > MAX_MOVES
                or not all(isinstance(move, str) and move and len(move) <= MAX_MOVE_TOKEN and move.isprintable()
                           and " " not in move for move in moves)):
            raise RequestError(f"the moves must be a list of at most {MAX_MOVES} move tokens")
        game = cls(name, start or None, tuple(moves))
        try:
            position = game.position()
        except ValueError as error:
            raise RequestError(f"Cannot follow the game: {error}") from None
        size = len(f"position {position}".encode()) + PLAY_ROOM
        if size > MAX_LINE_BYTES:
            raise RequestError(f"the game is too long for the engine: its position line would take {size} bytes"
                               f" (with room for the engine's move), more than the {MAX_LINE_BYTES} of a line")
        return game

    def position(self, extra: tuple[str, ...] = ()) -> str:
        """What follows `position` for this game's position (after `extra` moves). The
        protocol has no move for a player leaving: past the last `LEAVE` the position
        starts from the board text after it. Raises ValueError where the moves up to
        there are not the game's (`Game.of` has checked them)."""
        start, moves = self.start, self.moves + extra
        if LEAVE in moves:
            cut = len(moves) - moves[::-1].index(LEAVE)
            state = position_after(self.name, start, moves[:cut])
            start = find_game(self.name).format_board(state)
            moves = moves[cut:]
        text = "startpos" if start is None else f"board {start}"
        return f"{text} moves {' '.join(moves)}" if moves else text


def error_message(error: EngineError | RequestError | EngineClosed, seq: object) -> dict:
    """The page's `error` message for what went wrong."""
    if isinstance(error, EngineError):
        lead = ERROR_WORDS.get(error.code, "The engine refused it")
        return {"type": "error", "seq": seq, "code": error.code, "text": f"{lead}: {error.message}",
                "line": error.line}
    if isinstance(error, EngineClosed):
        return {"type": "error", "seq": seq, "code": "closed", "text": "The engine closed the session"}
    return {"type": "error", "seq": seq, "code": "request", "text": str(error)}


def _number(request: dict, key: str, low: int, high: int, default: int | None = None) -> int:
    value = request.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise RequestError(f"{key} must be a whole number from {low} to {high}")
    return value


def line_message(info: Info, style) -> dict:
    """A line of an analysis as the page reads it, with the arrow of each of its moves
    on the game's board `style` (`BOARD_STYLE`), for the page's preview of the line."""
    score = info.score
    return {"multipv": info.multipv or 1, "depth": info.depth,
            "seldepth": info.seldepth, "score": None if score is None else str(score),
            "cp": None if score is None else score.cp, "steady": info.steady,
            "mate": None if score is None else score.mate,
            "wdl": None if info.wdl is None else [info.wdl.win, info.wdl.draw, info.wdl.loss],
            "margin": info.margin, "nodes": info.nodes, "nps": info.nps, "time": info.time,
            "hashfull": info.hashfull, "pv": list(info.pv), "arrows": [style.arrow(move) for move in info.pv]}


def lines_message(lines: tuple[Info, ...], style, seq: object) -> dict:
    """The page's `lines` message: a whole set of an analysis's lines (`LineSets`), best
    first, all of one completed depth, each saying its depth (`line_message`)."""
    return {"type": "lines", "seq": seq, "lines": [line_message(info, style) for info in lines]}


class Tab:
    """One tab's engine session and the requests it carries out (see the module
    docstring). `send` delivers a message to the page. `own_engine`, where the session is
    the shared daemon's, opens one of an engine in this process, which the tab moves to
    where the daemon cannot load a game (its tables' budget is full)."""

    def __init__(self, engine: Engine, send: Callable[[dict], Awaitable[None]],
                 own_engine: Callable[[], Awaitable[Engine]] | None = None, studies: Studies | None = None,
                 explorer: Explorer | None = None):
        self.engine = engine
        self._studies = studies
        self._explorer = explorer
        #: The opening explorer's answer on its way (`explore`): a newer request
        #: replaces it, as the page only wants the position it shows.
        self._exploring: asyncio.Task | None = None
        #: The requests that need no engine, answered off the loop as they come, each
        #: with a list of messages.
        self._at_once = {"export": self._export, "study": self._study}
        self._send = send
        self._own_engine = own_engine
        self._game: str | None = None
        #: The options this tab has set in its session, by name (`_configure`).
        self._options: dict[str, object] = {}
        self._waiting: asyncio.Queue[dict] = asyncio.Queue()
        #: Set to halt the request being carried out: it stops its search, whether its
        #: `go` is written yet or not, and starts none after it.
        self._halted = asyncio.Event()
        #: The position that the engine's last move and the reply it expects lead to,
        #: and its `position` message: the pondering search's, unless the reply ends
        #: the game (then nothing is pondered).
        self._pondered: tuple[str, dict] | None = None
        self._worker = asyncio.ensure_future(self._work())

    async def submit(self, request: Any) -> None:
        """Take a request from the page: `stop` halts the request being carried out at
        once, `export`, `study` and `explore` are answered at once beside it (they need no
        engine), any other request halts it and waits its turn."""
        if not isinstance(request, dict) or not isinstance(request.get("op"), str):
            await self._send({"type": "error", "seq": None, "code": "request", "text": "not a request"})
            return
        if request["op"] == "explore":
            if self._exploring is not None:
                self._exploring.cancel()
            self._exploring = asyncio.ensure_future(self._explore(request))
            return
        if request["op"] in self._at_once:  # needs no engine: answered at once, a search going on
            try:
                for message in await asyncio.to_thread(self._at_once[request["op"]], request, request.get("seq")):
                    await self._send(message)
            except RequestError as error:
                await self._send(error_message(error, request.get("seq")))
            return
        self._halted.set()
        if request["op"] == "stop":
            return
        if self._waiting.qsize() >= MAX_WAITING:
            self._waiting.get_nowait()
        self._waiting.put_nowait(request)

    def _superseded(self) -> bool:
        """Whether the request being carried out was halted, or another waits."""
        return self._halted.is_set() or not self._waiting.empty()

    async def close(self) -> None:
        """Halt the request being carried out, end the worker and then the engine
        session (whose `quit` ends a search still running), each within CLOSE_WAIT_S."""
        self._halted.set()
        self._worker.cancel()
        if self._exploring is not None:
            self._exploring.cancel()
        try:
            await asyncio.wait_for(self._worker, CLOSE_WAIT_S)
        except asyncio.CancelledError:
            if asyncio.current_task().cancelling():
                raise
        except asyncio.TimeoutError:
            LOG.warning("a closed tab's request did not end within %s s", CLOSE_WAIT_S)
        try:
            await asyncio.wait_for(self.engine.close(), CLOSE_WAIT_S)
        except (asyncio.TimeoutError, ConnectionError, OSError) as error:
            LOG.warning("a closed tab's engine session did not close: %r", error)

    async def _work(self) -> None:
        while True:
            request = await self._waiting.get()
            self._halted = asyncio.Event()
            seq = request.get("seq")
            try:
                await self._carry_out(request, seq)
            except (EngineError, RequestError) as error:
                await self._send(error_message(error, seq))
            except EngineClosed as error:
                await self._send(error_message(error, seq))
                return
            except (ConnectionError, OSError) as error:
                LOG.info("tab's engine session lost: %s", error)
                await self._send(error_message(EngineClosed(str(error)), seq))
                return
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - a fault of ours must not end the tab
                LOG.exception("request %r failed", request.get("op"))
                await self._send({"type": "error", "seq": seq, "code": "internal",
                                  "text": f"The GUI failed: {type(error).__name__}: {error}"})
            if asyncio.current_task().cancelling():
                return  # cancelled while an error of the request's own was being raised

    async def _carry_out(self, request: dict, seq: object) -> None:
        op = request["op"]
        if op == "load":
            await self._send(self._record(request, seq))
            return
        handlers = {"show": self._show, "play": self._play, "analyse": self._analyse,
                    "analyse_game": self._analyse_game}
        if op not in handlers:
            raise RequestError(f"unknown request {op!r}")
        game = Game.of(request)
        await self._set_game(game.name)
        await handlers[op](game, request, seq)

    async def _set_game(self, name: str) -> None:
        if name == self._game:
            return
        self._pondered = None
        try:
            await self.engine.setgame(name)
        except EngineError as error:
            if self._own_engine is None or not no_room_for_game(error.line):
                raise
            LOG.warning("the shared engine daemon cannot load %s (%s): this tab's engine runs in this process"
                        " from now on", name, error.line)
            shared, self._options = self.engine, {}
            self.engine, self._own_engine = await self._own_engine(), None
            await shared.close()
            await self.engine.setgame(name)
        await self._configure({"ShowWDL": True, "ShowSteady": True})
        self._game = name

    async def _configure(self, options: dict[str, object]) -> None:
        """Set those of `options` that the session does not have yet."""
        changed = {name: value for name, value in options.items() if self._options.get(name) != value}
        if changed:
            await self.engine.configure(changed)
            self._options.update(changed)

    # ---- positions ------------------------------------------------------------------

    async def _view(self, game: Game, seq: object, extra: tuple[str, ...] = ()) -> dict:
        """The `position` message of `game`'s position (after `extra` moves), which the
        engine's session is left in."""
        await self.engine.position(game.position(extra))
        for command in ("d", "moves", "eval"):
            await self.engine.send(command)
        lines = await self.engine.ready()
        return position_message(game, extra, lines, seq)

    async def _show(self, game: Game, request: dict, seq: object) -> None:
        await self._send(await self._view(game, seq))

    # ---- play -------------------------------------------------------------------------

    async def _play(self, game: Game, request: dict, seq: object) -> None:
        movetime = _number(request, "movetime", 1, 3_600_000)
        human = request.get("human")
        limit = Limit(movetime=movetime)
        position = game.position()
        pondered, self._pondered = self._pondered, None
        if pondered is not None and pondered[0] == position:
            shown = {**pondered[1], "seq": seq}
        else:
            shown = await self._view(game, seq)
        await self._send(shown)
        if shown["result"] is not None:
            return
        if self._superseded():
            return
        await self._configure(PLAY_OPTIONS)
        answer = await self.engine.play(limit, position=position, stop=self._halted)
        if answer.move is None:
            return
        await self._send({"type": "bestmove", "seq": seq, "move": answer.move, "ponder": answer.ponder})
        after = await self._view(game, seq, (answer.move,))
        await self._send(after)
        if (request.get("ponder") and answer.ponder and after["result"] is None
                and after["to_move"] == human and not self._superseded()):
            expected = (answer.move, answer.ponder)
            try:
                message = await self._view(game, seq, expected)
            except EngineError:
                return  # not a legal reply after all: no pondering
            self._pondered = (game.position(expected), message)
            if message["result"] is None:  # the reply ends the game: nothing to ponder
                await self.engine.ponder(limit, position=game.position(expected))

    # ---- analysis -----------------------------------------------------------------------

    async def _analyse(self, game: Game, request: dict, seq: object) -> None:
        multipv = _number(request, "multipv", 1, 16, 1)
        shown = await self._view(game, seq)
        await self._send(shown)
        if shown["result"] is not None:
            return
        lines = LineSets(min(multipv, len(shown["legal"])))
        style = turn_format(game.name).BOARD_STYLE
        sent_at, unsent = 0.0, False
        loop = asyncio.get_running_loop()
        async with self.engine.analysis(multipv=multipv, stop=self._halted) as stream:
            async for info in stream:
                if info.score is None or not lines.add(info):
                    continue
                unsent = True
                if loop.time() - sent_at >= 1 / LINES_RATE:
                    sent_at, unsent = loop.time(), False
                    await self._send(lines_message(lines.complete, style, seq))
        if lines.close() or unsent:
            await self._send(lines_message(lines.complete, style, seq))
        await self._send({"type": "stopped", "seq": seq})

    # ---- records ------------------------------------------------------------------------

    def _record(self, request: dict, seq: object) -> dict:
        """A record file opened: an SGF collection's first game, with its tree, or a
        game of a format of a game's own (GGF, a transcript), or what engine-analyse
        reads (an arena record, a move list, a CodinGame replay)."""
        text = request.get("text")
        if not isinstance(text, str):
            raise RequestError("no record text")
        name = str(request.get("name") or "the record")[:200]
        try:
            records = read_tree_records(text, name)
            if records is None:
                return record_message(read_game_text(text, name), seq)
        except ValueError as error:
            raise RequestError(f"Cannot read the record: {error}") from None
        record = records[0]
        return {"type": "record", "seq": seq, "game": record.game, "start": start_board(record.game, record.start, record.params),
                "moves": record.moves(), "players": players_of(record), "stopped": None,
                "tree": tree_message(record), "headers": record.headers}

    def _study(self, request: dict, seq: object) -> list[dict]:
        """The answer to a request about the studies kept (`adapters.gui.studies`)."""
        if self._studies is None:
            raise RequestError("this engine-gui keeps no studies")
        try:
            return study_answer(self._studies, request, seq)
        except ValueError as error:
            raise RequestError(f"Study: {error}") from None
        except OSError as error:
            raise RequestError(f"Study: the studies' folder: {error.strerror or error}") from None

    async def _explore(self, request: dict) -> None:
        """The opening explorer's answer for the position `request` names, and a second
        once the index being built is there (`adapters.gui.explorer`)."""
        seq = request.get("seq")
        if self._explorer is None:
            await self._send(error_message(RequestError("this engine-gui has no opening explorer"), seq))
            return
        try:
            async for message in self._explorer.answers(request):
                await self._send(message)
        except ValueError as error:
            await self._send(error_message(RequestError(f"Explorer: {error}"), seq))

    def _export(self, request: dict, seq: object) -> list[dict]:
        """The page's game tree as an SGF record."""
        game = request.get("game")
        start = request.get("start")
        if not isinstance(game, str) or game not in all_games():
            raise RequestError("no game named")
        if start is not None and (not isinstance(start, str) or len(start) > MAX_BOARD):
            raise RequestError("the board text must be one line of at most 4096 characters")
        try:
            text = sgf_of_tree(game, start, request.get("tree"), request.get("headers"))
        except ValueError as error:
            raise RequestError(f"Cannot save the game: {error}") from None
        return [{"type": "export", "seq": seq, "format": "sgf", "text": text}]

    async def _analyse_game(self, game: Game, request: dict, seq: object) -> None:
        top = _number(request, "top", 1, 8, 3)
        if "depth" in request:
            limit = Limit(depth=_number(request, "depth", 1, 64))
        else:
            limit = Limit(movetime=_number(request, "movetime", 1, 600_000, 200))
        try:
            recorded = played_game(game.name, game.start, game.moves)
        except ValueError as error:
            raise RequestError(str(error)) from None
        await self._configure(ANALYSIS_OPTIONS)

        reached = [0]  # the plies analysed

        async def progress(done: int, total: int) -> None:
            reached[0] = done
            if self._superseded():
                raise Stopped
            await self._send({"type": "progress", "seq": seq, "done": done, "total": total})

        try:
            document = await analyse_game(self.engine, recorded, limit, top, stop=self._halted, prepare=False,
                                          progress=progress)
        except Stopped:
            await self._send({"type": "stopped", "seq": seq, "done": reached[0], "total": len(recorded.plies)})
            return
        views = iter(document["plies"])  # one a move; a player leaving has none
        await self._send({"type": "game_analysis", "seq": seq, "total": len(document["plies"]),
                          "plies": [None if token == LEAVE else engine_view(next(views)) for token in game.moves],
                          "summary": document["summary"]})


def position_message(game: Game, extra: tuple[str, ...], lines: list[str], seq: object) -> dict:
    """The page's `position` message from the replies to `d`, `moves` and `eval`."""
    rules = find_game(game.name)
    style = turn_format(game.name).BOARD_STYLE
    board_text = next(line for line in lines if line.startswith("board-text "))[len("board-text "):]
    rows, side, *fields = board_text.split()
    result = next((line.split()[1:] for line in lines if line.startswith("result ")), None)
    legal = next(line.split()[1:] for line in lines if line.split()[0] == "moves")
    words = [line.split() for line in lines if line.startswith("eval ")]
    total = next((int(fields_[2]) for fields_ in words if fields_[1] == "total"), None)
    played = game.moves + extra
    terms = [[fields_[2], [int(value) for value in fields_[3:]]] for fields_ in words if fields_[1] == "term"]
    return {"type": "position", "seq": seq, "game": game.name, "start": game.start, "moves": list(played),
            "board_text": board_text, "fields": " ".join(fields),
            "to_move": rules.player_names.index(side) if side in rules.player_names else None,
            "sides": list(rules.side_names), "view": style.view(rows.split("/"), rules.player_names),
            "legal": [{"move": move, "paths": style.click_paths(move), "arrow": style.arrow(move)} for move in legal],
            "last": style.marks(played[-1]) if played and played[-1] != LEAVE else [],
            "result": None if result is None else result_words(result, rules.player_names, rules.side_names),
            "eval": {"total": total, "terms": terms}}


def result_words(result: list[str], names: tuple[str, ...], sides: tuple[str, ...]) -> str:
    """`d`'s `result <winner> <reason>` in words: `white wins (no move)`."""
    winner, reason = result[0], " ".join(result[1:])
    who = "draw" if winner == "draw" else f"{sides[names.index(winner)]} wins" if winner in names else winner
    return f"{who} ({reason})" if reason else who


def start_board(game: str, board: str | None, params: dict[str, str]) -> str | None:
    """The board text a record of `game` starts from, for the page: its own `board`, or
    the start `params` make where it has none and they are given (the page sends no
    parameters); None for the game's plain start."""
    if board is None and params:
        rules = find_game(game)
        return rules.format_board(rules.initial_state(dict(params)))
    return board


def record_message(recorded: RecordedGame, seq: object) -> dict:
    """The page's `record` message: the game to replay from its start."""
    start = start_board(recorded.name, recorded.board, dict(recorded.params))
    return {"type": "record", "seq": seq, "game": recorded.name, "start": start,
            "moves": recorded.line(), "players": list(recorded.players),
            "stopped": recorded.stopped}
