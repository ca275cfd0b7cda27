"""Lines of Action's CodinGame turns.

The referee sends, on the player's first turn only, the player's colour (`b` for player
0, who moves first; `w` for player 1). Then every turn: 8 board lines of `b w .`, rank 8
first (the engine's board-text rows); the opponent's last move (`null` on the game's
first turn, `pass` after a pass); the number of legal moves and the moves in plain
string order, or `1` and `pass` when the player has no move.

The action is the text before the first space. With no move, `pass` or `random` passes;
otherwise `random` plays a random move and an action counts if it starts with a legal
move (so `pass` then loses).

Input beyond the position: the last action (the history's last move). The engine's
board text also wants the plies played, which the lines do not say: every ply is one
player's turn, passes included, so a reader's turn k (from 0) is ply 2k + its seat.
"""

from __future__ import annotations

from typing import Sequence

from adapters.view.board import SquareBoard
from adapters.codingame.common import (
    History,
    RANDOM,
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

GAME = find_game("loa")
PLAYERS = 2
FIRST_TURN_MS = 1000
TURN_MS = 150
BOARD_STYLE = SquareBoard(colours=(("#222", "#000"), ("#f4f4f4", "#333")), pieces="stones")
ENGINE_OPTIONS: tuple[tuple[str, str], ...] = ()
SENDS_LINE = False
COLOURS = "bw"
PASS = "pass"


def framer(first_turn: bool, expert: bool = False) -> TurnFramer:
    return TurnFramer((1 if first_turn else 0) + 9, listed=True)


def parse_turn(lines: Sequence[str], player: int | None = None, turn: int = 0,
               expert: bool = False) -> Turn:
    first_turn = player is None
    at = 0
    if player is None:
        (colour,) = strip_lines(lines, 0, 1, "colour line")
        if colour not in COLOURS or not colour:
            raise TurnFormatError(f"expected the colour b or w, got {quote(colour)}")
        player = COLOURS.index(colour)
        at = 1
    rows = strip_lines(lines, at, 8, "board")
    (last,) = strip_lines(lines, at + 8, 1, "last move")
    count = parse_count(strip_lines(lines, at + 9, 1, "move count")[0])
    legal = tuple(strip_lines(lines, at + 10, count, "moves"))
    return Turn(
        board_text="/".join(rows) + f" {COLOURS[player]} ply={2 * turn + player}",
        legal=legal,
        legal_count=count,
        player=player,
        first_turn=first_turn,
        last_action=None if last == "null" else last,
    )


def format_turn(state: Position, player: int, first_turn: bool, history: History,
                expert: bool = False) -> list[str]:
    assert state.to_move == player, "the referee only sends the player to move"
    lines = [COLOURS[player]] if first_turn else []
    lines += board_rows(GAME.format_board(state))
    lines.append(history[-1][1] if history else "null")
    lines += counted(referee_moves(state, history))
    return lines


def referee_moves(state: Position, history: History) -> list[str]:
    """Plain string order; `pass` alone when the player has no move."""
    return sorted_tokens(GAME, state)


legal_tokens = listed_legal_tokens


def parse_output(line: str, legal: Sequence[str]) -> str | None:
    if list(legal) == [PASS]:
        return PASS if line.split(" ", 1)[0] in (PASS, RANDOM) else None
    return first_token_output(line, legal)


def skipped(state: Position) -> str | None:
    """The referee asks every player whose turn comes, even for a pass."""
    return None


def format_output(token: str) -> str:
    return token
