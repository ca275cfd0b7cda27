"""What every game's CodinGame turn format shares: the parsed turn, the line framer, the
referees' output parsing, and the shape of a turn-format module.

Vocabulary:
- A *turn* is what the referee sends one player before that player answers with one
  line: on the player's first turn the one-time lines (identity, board size) come first.
- A *history* is the list of `(player, token)` pairs of every move played since the
  start position, in order, tokens in the engine's notation (a forced pass too). Some
  input lines depend on it rather than on the position alone (the last action, the
  players' last destinations); `format_turn` takes it.
"""

from __future__ import annotations

from typing import Callable, Protocol, Sequence

import attrs

from adapters.view.board import BoardStyle
from games.base import Game, GameError, Position
from games.text import quote

History = Sequence[tuple[int, str]]

#: What `parse_output` returns for the `random` keyword: the referee plays a random
#: legal move.
RANDOM = "random"


class TurnFormatError(GameError):
    """The lines of a turn do not have the game's CodinGame format; quotes the line."""


@attrs.frozen
class Turn:
    """One turn's input, read.

    Attributes:
        board_text: the `position board` text of the position for the engine.
        legal: the legal moves as the referee listed them, in its order, as engine
            tokens; None where the referee sends only a count.
        legal_count: how many legal moves the referee announced.
        player: the index of the player to move (the reader's own seat).
        first_turn: whether the one-time lines came first in this turn.
        last_action: the opponent's last move as the referee names it, where the
            referee sends one; None where it says `null` or the game has no such line.

    A game whose turns carry more (status lines, scores) reads them into a subclass of
    its own module.
    """

    board_text: str
    legal: tuple[str, ...] | None
    legal_count: int
    player: int
    first_turn: bool
    last_action: str | None = None


class TurnFramer:
    """Says when the lines of one turn are complete, without reading ahead.

    A turn is `head` lines, then a count line, then (if `listed`) that many lines. Feed
    lines with `add`; it returns True on the turn's last line.
    """

    def __init__(self, head: int, listed: bool):
        self.head = head
        self.listed = listed
        self.lines: list[str] = []
        self._needed: int | None = None

    def add(self, line: str) -> bool:
        """Take the next line; True when it completes the turn. Raises TurnFormatError
        when the count line is not a count."""
        self.lines.append(line)
        received = len(self.lines)
        if self._needed is None and received == self.head + 1:
            count = parse_count(line)
            self._needed = received + (count if self.listed else 0)
        return self._needed is not None and received >= self._needed

    @property
    def done(self) -> bool:
        return self._needed is not None and len(self.lines) >= self._needed


def read_turn(readline: Callable[[], str], framer: TurnFramer) -> list[str]:
    """The lines of one turn from `readline` (a file's readline: '' at end of input).

    Raises EOFError when the input ends before the turn is complete.
    """
    while True:
        line = readline()
        if not line:
            raise EOFError("input ended inside a turn" if framer.lines else "input ended")
        if framer.add(line.rstrip("\r\n")):
            return framer.lines


def parse_count(line: str) -> int:
    """A count line; raises TurnFormatError."""
    text = line.strip()
    if not text.isdigit():
        raise TurnFormatError(f"expected a count, got {quote(line)}")
    return int(text)


def strip_lines(lines: Sequence[str], start: int, count: int, what: str) -> list[str]:
    """`count` lines from `start`, stripped; raises TurnFormatError when missing."""
    if len(lines) < start + count:
        raise TurnFormatError(f"the turn ended before its {what}: {len(lines)} lines")
    return [line.strip() for line in lines[start:start + count]]


def board_rows(state_text: str) -> list[str]:
    """The rows of a board text (its first token split at `/`)."""
    return state_text.split(" ", 1)[0].split("/")


def counted(moves: Sequence[str]) -> list[str]:
    """The lines of a listed move set: its count, then one move a line."""
    return [str(len(moves)), *moves]


def listed_legal_tokens(turn: Turn) -> list[str]:
    """The legal moves of a turn whose referee lists them."""
    assert turn.legal is not None
    return list(turn.legal)


def sorted_tokens(game: Game, state: Position) -> list[str]:
    """The legal moves of `state` as tokens in plain string order (the engine's `moves`)."""
    return sorted(game.format_move(state, move) for move in state.legal_moves())


def first_token_output(line: str, legal: Sequence[str]) -> str | None:
    """The common reading of an output line: the text before the first space is the
    action; `random` asks for a random move; otherwise the first legal move (in the
    referee's list order) the action starts with. None for anything else."""
    action = line.split(" ", 1)[0]
    if action == RANDOM:
        return RANDOM
    for token in legal:
        if action.startswith(token):
            return token
    return None


class TurnFormat(Protocol):
    """The names every `adapters.codingame.<game>` module defines.

    A game of more than two players also defines `leave(state, player)`, the position
    after the player to move leaves the game (a timeout or a bad action), and
    `players_out(state)`, the players out of the game in the order they went out. A game
    whose referee labels moves its own way defines `matcher()`, a fresh labelling per
    game; one with an expert mode defines `asks_expert(line)`, whether an output line
    asks for the expert line from the next turn on.
    """

    GAME: Game
    #: Players of the game, and the CodinGame time limits in ms.
    PLAYERS: int
    FIRST_TURN_MS: int
    TURN_MS: int
    #: How the GUI and the replay page draw the board (adapters.view.board).
    BOARD_STYLE: BoardStyle
    #: The engine options (NAME, VALUE) the bot plays this game with, before the
    #: user's `--option`s, which may change them.
    ENGINE_OPTIONS: tuple[tuple[str, str], ...]
    #: Whether the bot sends the engine the game's moves since its first turn, not
    #: only the board (for an engine that models its opponents from their moves).
    SENDS_LINE: bool

    def framer(self, first_turn: bool, expert: bool = False) -> TurnFramer:
        """A framer for one turn's lines (first turn: with the one-time lines)."""

    def parse_turn(self, lines: Sequence[str], player: int | None = None, turn: int = 0,
                   expert: bool = False) -> Turn:
        """Read one turn. `player` is the reader's seat, None on its first turn (the
        one-time lines then say it); `turn` counts the reader's earlier turns; `expert`
        says the line of the game's expert mode is present (asked for by an output
        line, where the game has one). Raises TurnFormatError."""

    def format_turn(self, state: Position, player: int, first_turn: bool, history: History,
                    expert: bool = False) -> list[str]:
        """The lines the referee sends `player` (to move in `state`) this turn."""

    def legal_tokens(self, turn: Turn) -> list[str]:
        """The legal moves of a turn: the referee's list, or where it sends only a count,
        the game's own."""

    def referee_moves(self, state: Position, history: History) -> list[str]:
        """The legal moves in the order the referee lists (and matches) them."""

    def parse_output(self, line: str, legal: Sequence[str]) -> str | None:
        """The referee's reading of a bot's output line: a token of `legal`, RANDOM, or
        None for an invalid action."""

    def skipped(self, state: Position) -> str | None:
        """The move the referee plays for a player to move whom it does not ask (a forced
        pass), or None when it asks."""

    def format_output(self, token: str) -> str:
        """The output line for the engine's move token."""
