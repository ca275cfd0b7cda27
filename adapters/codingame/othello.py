"""Othello's CodinGame turns.

The referee sends, on the player's first turn only, the player's id (`0` black, who
moves first; `1` white) and `8`. Then every turn: 8 board lines of `0 1 .`, row 1 first
(exactly the engine's board-text rows); in EXPERT mode one line of the opponent's
actions since the player's previous turn, each followed by `;` (`pass;` for a forced
pass); the number of legal moves and the moves, one a line, never empty: a player
without a move is skipped by the referee, never asked.

The move list is in the referee's order, not sorted: it walks the discs in the order
they were placed (d4, e4, d5, e5, then every disc placed since), and from each disc of
the player to move the directions N, NE, E, SE, S, SW, W, NW (N towards row 1), adding
each empty square reached over at least one enemy disc the first time it is found.

The referee splits the output line on `MSG`, removes `EXPERT` from the first part, then
all whitespace, lowercases it, and wants exactly a legal move. An output containing
`EXPERT` switches the EXPERT line on for that player's later turns.

Input beyond the position: the placement order (the history's placements) for the move
order, and the opponent's actions since the player's last turn for the EXPERT line.
"""

from __future__ import annotations

import re
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
    listed_legal_tokens,
    parse_count,
    strip_lines,
)
from games import find_game
from games.base import Position, parse_square, square_name
from games.text import quote

GAME = find_game("othello")
PLAYERS = 2
FIRST_TURN_MS = 2000
TURN_MS = 150
BOARD_STYLE = SquareBoard(colours=(("#111", "#000"), ("#f4f4f4", "#333")), row1_top=True, felt="#2e7d32",
                          pieces="discs")
ENGINE_OPTIONS: tuple[tuple[str, str], ...] = ()
SENDS_LINE = False
BOARD_SIZE = "8"
IDS = "01"
PASS = "pass"
EXPERT = "EXPERT"

#: The four start discs in the order the referee stores them: d4, e4, d5, e5.
START_DISCS = (27, 28, 35, 36)
#: (file step, row step) for N, NE, E, SE, S, SW, W, NW; row 1 is the top row.
DIRECTIONS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
#: What Java's `\s` matches.
_JAVA_SPACE = re.compile(r"[ \t\n\x0b\f\r]")


@attrs.frozen
class OthelloTurn(Turn):
    """A turn, with the actions of the EXPERT line (`pass` for a forced pass) when the
    line was expected; else None."""

    expert_actions: tuple[str, ...] | None = None


def framer(first_turn: bool, expert: bool = False) -> TurnFramer:
    return TurnFramer((2 if first_turn else 0) + 8 + (1 if expert else 0), listed=True)


def parse_turn(lines: Sequence[str], player: int | None = None, turn: int = 0,
               expert: bool = False) -> OthelloTurn:
    first_turn = player is None
    at = 0
    if player is None:
        ident, size = strip_lines(lines, 0, 2, "first-turn lines")
        if ident not in IDS or not ident:
            raise TurnFormatError(f"expected the player id 0 or 1, got {quote(ident)}")
        if size != BOARD_SIZE:
            raise TurnFormatError(f"expected the board size {BOARD_SIZE}, got {quote(size)}")
        player = int(ident)
        at = 2
    rows = strip_lines(lines, at, 8, "board")
    at += 8
    actions = None
    if expert:
        (line,) = strip_lines(lines, at, 1, "EXPERT line")
        actions = tuple(action for action in line.split(";") if action)
        at += 1
    count = parse_count(strip_lines(lines, at, 1, "move count")[0])
    legal = tuple(strip_lines(lines, at + 1, count, "moves"))
    return OthelloTurn(
        board_text="/".join(rows) + " " + IDS[player],
        legal=legal,
        legal_count=count,
        player=player,
        first_turn=first_turn,
        expert_actions=actions,
    )


def format_turn(state: Position, player: int, first_turn: bool, history: History,
                expert: bool = False) -> list[str]:
    assert state.to_move == player, "the referee only sends the player to move"
    lines = [IDS[player], BOARD_SIZE] if first_turn else []
    lines += board_rows(GAME.format_board(state))
    if expert:
        lines.append("".join(action + ";" for action in actions_since_last_turn(player, history)))
    lines += counted(referee_moves(state, history))
    return lines


def actions_since_last_turn(player: int, history: History) -> list[str]:
    """The opponent's actions (`pass` for a forced pass) since `player` last placed a
    disc; the player's own forced passes are no turns of its own and are skipped."""
    actions: list[str] = []
    for mover, token in reversed(history):
        if mover == player:
            if token != PASS:
                break
            continue
        actions.append(token)
    return actions[::-1]


def referee_moves(state: Position, history: History) -> list[str]:
    """The legal moves in the referee's order (see the module docstring), checked
    against the game's own legal moves."""
    black, white = GAME.discs(state)
    own, opp = (black, white) if state.to_move == 0 else (white, black)
    placed = list(START_DISCS) + [parse_square(token) for _, token in history if token != PASS]
    found: list[int] = []
    for disc in placed:
        if not own >> disc & 1:
            continue
        file, row = disc & 7, disc >> 3
        for step_file, step_row in DIRECTIONS:
            x, y, jumped = file + step_file, row + step_row, 0
            while 0 <= x < 8 and 0 <= y < 8:
                square = y * 8 + x
                if opp >> square & 1:
                    jumped += 1
                elif own >> square & 1:
                    break
                else:
                    if jumped and square not in found:
                        found.append(square)
                    break
                x, y = x + step_file, y + step_row
    legal = set(state.legal_moves())
    if set(found) != legal:
        raise ValueError("the history does not lead to this position: the referee's walk"
                         f" finds {sorted(map(square_name, found))}, the rules"
                         f" {sorted(GAME.format_move(state, move) for move in legal)}")
    return [square_name(square) for square in found]


legal_tokens = listed_legal_tokens


def parse_output(line: str, legal: Sequence[str]) -> str | None:
    action = _JAVA_SPACE.sub("", line.split("MSG", 1)[0].replace(EXPERT, "")).lower()
    return action if action in legal else None


def asks_expert(line: str) -> bool:
    """Whether an output line switches the EXPERT line on for the player's later turns."""
    return EXPERT in line


def skipped(state: Position) -> str | None:
    """`pass` when the player to move must pass: the referee skips it without asking."""
    moves = state.legal_moves()
    if len(moves) == 1 and GAME.format_move(state, moves[0]) == PASS:
        return PASS
    return None


def format_output(token: str) -> str:
    return token
