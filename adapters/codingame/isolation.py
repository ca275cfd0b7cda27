"""Knight Isolation's ("Mad Knights") CodinGame turns, three players.

The referee sends, on the player's first turn only (global turns 1 to 3), its letter (`r`
player 0, `g` 1, `b` 2; red moves first). Then every turn: three status lines in r, g, b
order, `<letter> <1 in, 0 out> <last destination or null>`; 8 board lines of
`. # r g b`, rank 8 first (the engine's board-text rows; knights of players out stay on
the board); the number of legal moves and the destination squares in string order. A
player without a move is put out without any input, and a player left alone is declared
the winner without any, so the list is never empty.

The action is the text before the first space; it counts if it starts with a legal
square, and `random` plays a random one. A bad action or a timeout puts that player out
(its knight stays); the game goes on for the others.

Input beyond the position: each player's last destination (the history). The engine's
board text names the players in from the status lines; when a player is asked, at most
one other is out, so the order in which players went out (`out=`) needs no history.
"""

from __future__ import annotations

from typing import Sequence

import attrs

from adapters.view.board import SquareBoard
from adapters.codingame.common import (
    History,
    Turn,
    TurnFormatError,
    TurnFramer,
    board_rows,
    counted,
    first_token_output,
    listed_legal_tokens,
    parse_count,
    sorted_tokens,
    strip_lines,
)
from games import find_game
from games.base import Position
from games.text import quote

GAME = find_game("isolation")
PLAYERS = 3
FIRST_TURN_MS = 1000
TURN_MS = 100
BOARD_STYLE = SquareBoard(colours=(("#d33", "#600"), ("#3a3", "#050"), ("#36d", "#014")), lettered=True,
                          blocked="#", pieces="knights")
#: The tree search with the rivals it can predict modelled from their moves: against
#: the paranoid bot and a greedy one it finishes first in 299 of 432 games, the plain
#: tree search in 224 (and the paranoid search in 92 of 216); against two greedy bots
#: in 202 of 216, the plain tree search in 144 (docs/isolation.md).
ENGINE_OPTIONS = (("MultiPlayerSearch", "model"),)
#: The rival models read the rivals' moves.
SENDS_LINE = True
LETTERS = "rgb"


@attrs.frozen
class PlayerStatus:
    """One status line: the player's letter, whether it is still in, and its last
    destination (None before its first move)."""

    letter: str
    active: bool
    last: str | None


@attrs.frozen
class IsolationTurn(Turn):
    """A turn, with the three status lines in r, g, b order."""

    statuses: tuple[PlayerStatus, ...] = ()


def framer(first_turn: bool, expert: bool = False) -> TurnFramer:
    return TurnFramer((1 if first_turn else 0) + 11, listed=True)


def parse_status(line: str, letter: str) -> PlayerStatus:
    parts = line.split()
    if len(parts) != 3 or parts[0] != letter or parts[1] not in ("0", "1"):
        raise TurnFormatError(f"expected the status line of {letter}, got {quote(line)}")
    return PlayerStatus(letter, parts[1] == "1", None if parts[2] == "null" else parts[2])


def parse_turn(lines: Sequence[str], player: int | None = None, turn: int = 0,
               expert: bool = False) -> IsolationTurn:
    first_turn = player is None
    at = 0
    if player is None:
        (letter,) = strip_lines(lines, 0, 1, "letter line")
        if letter not in LETTERS or not letter:
            raise TurnFormatError(f"expected the letter r, g or b, got {quote(letter)}")
        player = LETTERS.index(letter)
        at = 1
    statuses = tuple(parse_status(line, letter)
                     for line, letter in zip(strip_lines(lines, at, 3, "status lines"), LETTERS))
    rows = strip_lines(lines, at + 3, 8, "board")
    count = parse_count(strip_lines(lines, at + 11, 1, "move count")[0])
    legal = tuple(strip_lines(lines, at + 12, count, "moves"))
    alive = "".join(status.letter for status in statuses if status.active)
    out = "".join(status.letter for status in statuses if not status.active)
    text = "/".join(rows) + f" {LETTERS[player]} alive={alive}"
    if len(out) == 1:
        text += f" out={out}"
    return IsolationTurn(
        board_text=text,
        legal=legal,
        legal_count=count,
        player=player,
        first_turn=first_turn,
        statuses=statuses,
    )


def format_turn(state: Position, player: int, first_turn: bool, history: History,
                expert: bool = False) -> list[str]:
    assert state.to_move == player, "the referee only sends the player to move"
    lines = [LETTERS[player]] if first_turn else []
    last: list[str] = ["null"] * PLAYERS
    for mover, token in history:
        last[mover] = token
    alive = GAME.alive(state)
    for index, letter in enumerate(LETTERS):
        lines.append(f"{letter} {alive >> index & 1} {last[index]}")
    lines += board_rows(GAME.format_board(state))
    lines += counted(referee_moves(state, history))
    return lines


def referee_moves(state: Position, history: History) -> list[str]:
    return sorted_tokens(GAME, state)


legal_tokens = listed_legal_tokens


def parse_output(line: str, legal: Sequence[str]) -> str | None:
    return first_token_output(line, legal)


def skipped(state: Position) -> str | None:
    """The referee asks every player whose turn comes; one without a move is put out by
    the rules themselves, never asked."""
    return None


def format_output(token: str) -> str:
    return token


def players_out(state: Position) -> tuple[int, ...]:
    """The players the game has put out (for a move it did not have, or by `leave`), in
    the order they went out."""
    scores = GAME.scores(state)
    return tuple(sorted((player for player in range(PLAYERS) if scores[player] >= 0), key=scores.__getitem__))


def leave(state: Position, player: int) -> Position:
    """`state` after `player` (to move) leaves the game for a bad action or a timeout:
    its knight stays on its square and the turn passes to the next player still in,
    who is put out in turn if it has no move, as the referee does."""
    rows = GAME.format_board(state).split()[0]
    alive = GAME.alive(state) & ~(1 << player)
    order = "".join(LETTERS[index] for index in (*players_out(state), player))
    following = next(index % PLAYERS for index in range(player + 1, player + PLAYERS + 1)
                     if alive >> (index % PLAYERS) & 1)
    letters = "".join(letter for index, letter in enumerate(LETTERS) if alive >> index & 1)
    return GAME.parse_board([rows, LETTERS[following], f"alive={letters}", f"out={order}"])
