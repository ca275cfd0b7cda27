"""The games `engine-analyse` reads: an arena record, a move list, a CodinGame replay.

Each reader gives a `Game`: its name, `setgame` parameters, start board and every
position before a move with the move played there, each move checked legal by the
engine's rules, and the players' names where the record gives them. A game whose record
stops before its end (a bot that timed out, played an invalid action, or `random`, whose
draw a replay does not record) keeps the moves up to there, and `Game.stopped` says why.

A CodinGame replay is the JSON the site serves for a game (its `frames`, each with the
`agentId` of the player that played it and that player's `stdout`, possibly inside
`gameResult`), or the local game runner's result (its `outputs` by agent, one entry a
turn). Its output lines are read as that game's referee reads them (the turn format's
`parse_output`); the passes the referee plays for a player without a move are played
where the rules call for them; a player that times out in a game of more players leaves
it as on CodinGame. The players' names are the replay's `agents` (the site's
`codingamer` `pseudo` or `arenaboss` `nickname`, the local runner's `name`). The replay
does not name its game: `read_game` takes it, or finds the game whose rules read the
most of its lines as moves. The seed, where the game takes one, is the replay's
`refereeInput` (or `gameParameters`) `seed=`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Sequence

import attrs

from adapters.codingame import formats, turn_format
from adapters.codingame.common import RANDOM
from games import find_game
from games.base import GameError, Position
from games.text import quote

#: The token, in a move list of a game of more players, of the player to move leaving
#: the game (as after a timeout or a bad action) instead of moving.
LEAVE = "leave"


@attrs.frozen
class Game:
    """A game to analyse.

    Attributes:
        name: the game.
        params: its `setgame` parameters.
        board: the board text it starts from; None for the start position of `params`.
        plies: each position before a move, with the move played there, in order.
        stopped: why the record stops before the game's end, or None.
        players: the players' names by seat (an arena record's bots, a replay's
            CodinGame players), None for a seat the record does not name; empty where it
            names none (a move list).
        leaves: in a game of more players, how many moves had been played each time
            the player to move left the game, in order.
    """

    name: str
    params: tuple[tuple[str, str], ...]
    board: str | None
    plies: tuple[tuple[Position, str], ...]
    stopped: str | None = None
    players: tuple[str | None, ...] = ()
    leaves: tuple[int, ...] = ()

    def line(self) -> list[str]:
        """The moves in order, with `LEAVE` where a player left: what `played_game`
        takes to give this game back."""
        tokens = [played for _, played in self.plies]
        for count in reversed(self.leaves):
            tokens.insert(count, LEAVE)
        return tokens


class _Follower:
    """A game followed move by move from its start, as a referee follows it."""

    def __init__(self, name: str, params: dict[str, str], board: str | None):
        self.name, self.params, self.board = name, params, board
        self.rules = find_game(name)
        self.state = self.rules.parse_board(board.split()) if board else self.rules.initial_state(params)
        self.plies: list[tuple[Position, str]] = []
        self.leaves: list[int] = []

    def play(self, token: str) -> None:
        """Play `token` for the player to move (`LEAVE`: see `leave`); raises ValueError
        saying which move is illegal."""
        if token == LEAVE:
            self.leave()
            return
        try:
            move = self.rules.parse_move(self.state, token)
        except GameError as error:
            raise ValueError(f"move {len(self.plies) + 1} ({token}): {error}") from None
        self.plies.append((self.state, token))
        self.state = self.state.play(move)

    @property
    def history(self) -> list[tuple[int, str]]:
        """(player, move) of every move played, as the turn formats take them."""
        return [(position.to_move, token) for position, token in self.plies]

    def leave(self) -> None:
        """The player to move leaves the game (a timeout or a bad action in a game of
        more players); raises ValueError in a game of two or one that is over."""
        where = f"move {len(self.plies) + 1} ({LEAVE})"
        if turn_format(self.name).PLAYERS <= 2:
            raise ValueError(f"{where}: only a game of more than two players goes on when a player leaves")
        if self.state.outcome() is not None:
            raise ValueError(f"{where}: the game is over")
        self.state = turn_format(self.name).leave(self.state, self.state.to_move)  # type: ignore[attr-defined]
        self.leaves.append(len(self.plies))

    def game(self, stopped: str | None = None, players: Sequence[str | None] = ()) -> Game:
        return Game(self.name, tuple(sorted(self.params.items())), self.board, tuple(self.plies), stopped,
                    tuple(players), tuple(self.leaves))


def read_game(path: Path, game: str | None = None) -> Game:
    """The game in `path` (an arena record, a CodinGame replay or a move list); `game`
    names the game of a replay (None: the one whose rules read it), and a record of
    another game is an error. Raises OSError where the file cannot be read, ValueError
    saying what is wrong with it (naming `path` where it is not UTF-8 text)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text (byte {error.object[error.start]:#04x}"
                         f" at offset {error.start})") from None
    return read_game_text(text, str(path), game)


def read_game_text(text: str, path: str, game: str | None = None) -> Game:
    """The game in `text`, the content of a game file named `path` (see `read_game`).
    Whatever `text` holds (JSON nested however deep, values of any type, numbers too
    long to read), what is wrong with it is a ValueError in words."""
    if not text.lstrip().startswith("{"):
        read = read_move_list(text, path)
    else:
        read = _read_json(text, path, game)
    if game is not None and read.name != game:
        raise ValueError(f"{path}: a game of {read.name}, not of {game}")
    return read


def _read_json(text: str, path: str, game: str | None) -> Game:
    try:
        document = json.loads(text)
    except RecursionError:
        raise ValueError(f"{path}: its JSON is nested too deep to read") from None
    except ValueError as error:  # not JSON, or a number of too many digits
        raise ValueError(f"{path}: not JSON: {error}") from None
    if not isinstance(document, dict):
        raise ValueError(f"{path}: a game file's JSON is an object")
    result = document.get("gameResult", document)
    if "moves" in document and "game" in document:
        kind, read = "arena record", lambda: read_record(document)
    elif isinstance(result, dict) and ("frames" in result or "outputs" in result):
        kind, read = "CodinGame replay", lambda: read_replay(document, game)
    else:
        raise ValueError(f"{path}: neither an arena record (game, moves) nor a CodinGame replay (frames, outputs)")
    try:
        return read()
    except (KeyError, TypeError, AttributeError, IndexError) as error:
        raise ValueError(f"{path}: not a well-formed {kind} ({type(error).__name__}: {error})") from None


def read_move_list(text: str, where: str) -> Game:
    """A move list: `setgame GAME [key=value ...]`, an optional `board <board text>`,
    then the moves separated by blanks or line ends; `#` starts a comment. In a game of
    more players, `leave` for a move is the player to move leaving the game (`LEAVE`)."""
    lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines or not lines[0].startswith("setgame ") or len(lines[0].split()) < 2:
        raise ValueError(f"{where}: the first line must be setgame GAME [key=value ...]")
    words = lines[0].split()
    params = dict(word.split("=", 1) for word in words[2:] if "=" in word)
    board = None
    rest = lines[1:]
    if rest and rest[0].startswith("board "):
        board, rest = rest[0][len("board "):], rest[1:]
    follower = _following(words[1], params, board)
    for token in " ".join(rest).split():
        follower.play(token)
    return follower.game()


def played_game(name: str, board: str | None, moves: Sequence[str]) -> Game:
    """The game `name` from `board` (None: its start position) with `moves` played
    (`LEAVE` among them: the player to move leaves); raises ValueError saying which
    move is illegal."""
    return _played(name, board, moves).game()


def position_after(name: str, board: str | None, moves: Sequence[str]) -> Position:
    """The position `played_game` reaches; raises ValueError as it does."""
    return _played(name, board, moves).state


def _played(name: str, board: str | None, moves: Sequence[str]) -> _Follower:
    follower = _following(name, {}, board)
    for token in moves:
        follower.play(token)
    return follower


def read_record(record: dict) -> Game:
    """An `engine-arena` game record: its moves, and in a game of more players the
    players that left it (its timeout, crash and invalid-action events). Raises TypeError
    where its game, start board or seats are not texts."""
    name, start, seats = record["game"], record.get("start"), record.get("seats", [])
    if not isinstance(name, str) or not isinstance(start, (str, type(None))):
        raise TypeError("its game and start are texts")
    if not isinstance(seats, list) or not all(isinstance(seat, str) for seat in seats):
        raise TypeError("its seats are a list of names")
    follower = _following(name, {}, start)
    leaving = {}
    if turn_format(follower.name).PLAYERS > 2:
        leaving = {event["at"]: event["player"] for event in record.get("events", ())
                   if event.get("event") in ("timeout", "crashed", "invalid")}
    for index, move in enumerate(record["moves"]):
        if leaving.get(index) == follower.state.to_move:
            follower.leave()
        if move.get("player", follower.state.to_move) != follower.state.to_move:
            raise ValueError(f"move {index + 1} ({move['move']}) is player {move['player']}'s,"
                             f" but player {follower.state.to_move} is to move")
        follower.play(move["move"])
    return follower.game(players=seats)


def replay_outputs(document: dict) -> list[tuple[int, str | None]]:
    """The players' turns of a CodinGame replay in order: (agent index, the first line of
    its output, None when it gave none)."""
    result = document.get("gameResult", document)
    turns: list[tuple[int, str | None]] = []
    if "frames" in result:
        for frame in result["frames"]:
            agent = frame.get("agentId", -1)
            if isinstance(agent, int) and agent >= 0:
                turns.append((agent, _first_line(frame.get("stdout"))))
        return turns
    outputs = {int(key): value for key, value in result["outputs"].items() if str(key).isdigit()}
    for index in range(max((len(lines) for lines in outputs.values()), default=0)):
        for agent, lines in sorted(outputs.items()):
            if index < len(lines) and lines[index] is not None:
                turns.append((agent, _first_line(lines[index])))
    return turns


def replay_names(document: dict) -> dict[int, str]:
    """The names a CodinGame replay gives its players, by agent index: its `agents`
    (beside `gameResult` or inside it), each named by its `codingamer`'s `pseudo`, its
    `arenaboss`'s `nickname` (the site) or its `name` (the local runner). Agents without
    a name are left out."""
    result = document.get("gameResult", document)
    agents = document.get("agents") or (result.get("agents") if isinstance(result, dict) else None)
    names = {}
    for agent in agents if isinstance(agents, list) else ():
        if not isinstance(agent, dict) or not isinstance(agent.get("index"), int):
            continue
        found = [_field(agent.get("codingamer"), "pseudo"), _field(agent.get("arenaboss"), "nickname"),
                 _field(agent, "name")]
        name = next((name for name in found if name), None)
        if name is not None:
            names[agent["index"]] = name
    return names


def _field(entry: object, key: str) -> str | None:
    value = entry.get(key) if isinstance(entry, dict) else None
    return value if isinstance(value, str) else None


def _first_line(output: object) -> str | None:
    if not isinstance(output, str) or not output.strip("\r\n"):
        return None
    return output.splitlines()[0]


def replay_params(document: dict, parameters: Sequence[str]) -> dict[str, str]:
    """The game's `setgame` parameters a replay states (`refereeInput` lines or
    `gameParameters` entries `key=value`)."""
    result = document.get("gameResult", document)
    entries: Iterable[str] = result.get("gameParameters") or str(result.get("refereeInput") or "").splitlines()
    found = {}
    for entry in entries:
        key, sep, value = str(entry).strip().partition("=")
        if sep and key in parameters:
            found[key] = value.strip()
    return found


def read_replay(document: dict, game: str | None = None) -> Game:
    """A CodinGame replay of `game`, or of the game whose rules read the most of its
    output lines as moves (a tie asks for `game`)."""
    turns = replay_outputs(document)
    if game is not None:
        return follow_replay(document, turns, game)[0]
    agents = len({agent for agent, _ in turns})
    reads: dict[str, tuple[Game, int]] = {}
    for name in formats():
        if turn_format(name).PLAYERS >= agents:
            try:
                reads[name] = follow_replay(document, turns, name)
            except ValueError:
                continue
    fewest = min((unread for _, unread in reads.values()), default=None)
    best = [name for name, (read, unread) in reads.items() if unread == fewest and read.plies]
    if len(best) != 1:
        which = f"the rules of {' and '.join(best)} read it alike" if best else "no game's rules read it"
        raise ValueError(f"which game is this replay? {which}: say it with --game")
    return reads[best[0]][0]


def follow_replay(document: dict, turns: Sequence[tuple[int, str | None]], name: str) -> tuple[Game, int]:
    """The replay's turns followed under game `name`'s rules and referee (see the module
    docstring), and how many of its output lines were not read as moves (invalid, or
    left over after the end). Raises ValueError where a turn cannot be the game's."""
    fmt = turn_format(name)
    follower = _following(name, replay_params(document, find_game(name).parameters), None)
    seats: dict[int, int] = {}
    unread = 0
    names = replay_names(document)

    def game(why: str | None = None) -> Game:
        players = [None] * fmt.PLAYERS
        for agent, seat in seats.items():
            players[seat] = names.get(agent)
        return follower.game(why, players if any(players) else ())

    def stop(number: int, why: str | None = None) -> tuple[Game, int]:
        rest = sum(line is not None for _, line in turns[number - 1:])
        return game(why), unread + rest

    for number, (agent, line) in enumerate(turns, 1):
        while True:
            if follower.state.outcome() is not None:
                return stop(number)
            forced = fmt.skipped(follower.state)
            if forced is not None:
                follower.play(forced)
                continue
            seat = follower.state.to_move
            if agent not in seats and seat not in seats.values():
                seats[agent] = seat
            if seats.get(agent) == seat:
                break
            if fmt.PLAYERS == 2:
                raise ValueError(f"turn {number}: agent {agent} played, but it is the other player's turn")
            follower.leave()  # the player to move timed out without a turn of its own in the replay
        if line is None:
            if fmt.PLAYERS == 2:
                return stop(number, f"timeout: agent {agent} gave no output at turn {number}")
            follower.leave()
            continue
        token = fmt.parse_output(line, fmt.referee_moves(follower.state, follower.history))
        if token == RANDOM:
            return stop(number, f"random: agent {agent} played {quote(line)} at turn {number},"
                                " and the replay does not say which move the referee drew")
        if token is None:
            if fmt.PLAYERS == 2:
                return stop(number, f"invalid: agent {agent}'s output {quote(line)} at turn {number}"
                                    " is no legal move")
            unread += 1
            follower.leave()
            continue
        follower.play(token)
    return game(), unread


def _following(name: str, params: dict[str, str], board: str | None) -> _Follower:
    try:
        return _Follower(name, params, board)
    except (KeyError, GameError) as error:
        raise ValueError(f"{quote(name)}: {error}") from None
