"""Clobber's CodinGame turns.

The referee sends, on the player's first turn only, `8` (the board size) and the
player's colour (`w` for player 0, who moves first; `b` for player 1). Then every turn:
8 board lines of `w b .`, rank 8 first (exactly the engine's board-text rows), the
opponent's last move (`null` on the game's first turn), and the number of legal moves;
no list. The action is the text before the first space; it counts if it starts with a
legal move, and `random` plays a random one.

Input beyond the position: the last action (the history's last move).
"""

from __future__ import annotations

from typing import Sequence

from adapters.view.board import SquareBoard
from adapters.codingame.common import (
    History,
    Turn,
    TurnFormatError,
    TurnFramer,
    board_rows,
    first_token_output,
    parse_count,
    sorted_tokens,
    strip_lines,
)
from games import find_game
from games.base import Position
from games.text import quote

GAME = find_game("clobber")
PLAYERS = 2
FIRST_TURN_MS = 1000
TURN_MS = 150
BOARD_STYLE = SquareBoard(colours=(("#f4f4f4", "#333"), ("#222", "#000")), pieces="stones")
ENGINE_OPTIONS: tuple[tuple[str, str], ...] = ()
SENDS_LINE = False
BOARD_SIZE = "8"
COLOURS = "wb"


def framer(first_turn: bool, expert: bool = False) -> TurnFramer:
    return TurnFramer((2 if first_turn else 0) + 9, listed=False)


def parse_turn(lines: Sequence[str], player: int | None = None, turn: int = 0,
               expert: bool = False) -> Turn:
    first_turn = player is None
    at = 0
    if player is None:
        size, colour = strip_lines(lines, 0, 2, "first-turn lines")
        if size != BOARD_SIZE:
            raise TurnFormatError(f"expected the board size {BOARD_SIZE}, got {quote(size)}")
        if colour not in COLOURS or not colour:
            raise TurnFormatError(f"expected the colour w or b, got {quote(colour)}")
        player = COLOURS.index(colour)
        at = 2
    rows = strip_lines(lines, at, 8, "board")
    (last,) = strip_lines(lines, at + 8, 1, "last action")
    count = parse_count(strip_lines(lines, at + 9, 1, "move count")[0])
    return Turn(
        board_text="/".join(rows) + " " + COLOURS[player],
        legal=None,
        legal_count=count,
        player=player,
        first_turn=first_turn,
        last_action=None if last == "null" else last,
    )


def format_turn(state: Position, player: int, first_turn: bool, history: History,
                expert: bool = False) -> list[str]:
    assert state.to_move == player, "the referee only sends the player to move"
    lines = [BOARD_SIZE, COLOURS[player]] if first_turn else []
    lines += board_rows(GAME.format_board(state))
    lines.append(history[-1][1] if history else "null")
    lines.append(str(len(state.legal_moves())))
    return lines


def legal_tokens(turn: Turn) -> list[str]:
    """The game's own legal moves: the referee sends only their count."""
    return sorted_tokens(GAME, GAME.parse_board(turn.board_text.split()))


def referee_moves(state: Position, history: History) -> list[str]:
    # The referee's own order is never sent; any order matches the same way, since no
    # move token is the prefix of another.
    return sorted_tokens(GAME, state)


def parse_output(line: str, legal: Sequence[str]) -> str | None:
    return first_token_output(line, legal)


def skipped(state: Position) -> str | None:
    """The referee asks every player whose turn comes."""
    return None


def format_output(token: str) -> str:
    return token
