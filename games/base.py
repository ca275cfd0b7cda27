"""The vocabulary every game and every search shares.

A game is a `Game` (the descriptor: name, players, notation, and `rules`, the module of
its kernels) and its positions. Searches walk kernel states, tuples of numpy scalars,
through the game's kernels (`games.kernel`); everything at the edge (the protocol,
notation, adapters, tests) holds a `Position`, a game and one kernel state. Both are
immutable: `play` returns a new one. Moves are plain ints whose encoding each game
documents in its package docstring; text appears only at the edge, through the game's
`parse_*`/`format_*` pairs.

The kernels of a game's `rules` module (all `games.kernel.kernel`s; `s` a kernel state):
    STATE_TYPES        the numpy type of each field of a kernel state
    KEY_SCHEME         the version of the Zobrist key layout, written into hash files
    MAX_MOVES          an upper bound on the legal moves of any position
    MOVE_LIMIT         every move int is in range(MOVE_LIMIT)
    HISTORY_MASK       2**k - 1 such that `move & HISTORY_MASK` differs for any two
                       distinct moves (the history table's index)
    legal_moves(s, out) -> n      the moves into out[:n] (an int64 array), in the
                                  game's documented order
    play(s, move) -> s            the position after `move`, its key updated
    key(s) -> np.uint64           the Zobrist key
    to_move(s) -> int             the index of the player to move
    result(s) -> int              ONGOING while the game goes on, else the sign of the
                                  side to move's return (1, 0, -1)
    margin(s) -> int              of a finished position: its margin (discs, marbles)
                                  for the side to move where the game has one, else
                                  the side to move's return
    evaluate(s) -> int            the heuristic value for the side to move, in
                                  centi-units (CENTI = one stone or disc)
    solvable(s) -> bool           whether an exact search to the end is cheap enough
                                  to replace the heuristic one

An optional kernel of any game's `rules`:
    move_count(s) -> int          the number of legal moves, without listing them:
                                  perft counts its last ply with it

Optional kernels of a two-player game's `rules`, for its exact solver (`search.solver`):
    mobility(s) -> int            low for a position the side to move will find hard
                                  (its moves, counted cheaply): the solver tries first
                                  the moves that leave the opponent the lowest
    solve_seconds(s) -> float     the solve-time model: about how many seconds (compiled)
                                  a proof of win, loss or draw of `s` takes; a search
                                  with a deadline solves when it fits the time left
                                  (without one, a search with a deadline solves where
                                  `solvable` says)
    MARGIN_LIMIT                  no final margin is above it: the exact margin is then
                                  found by halving it with null windows (without it,
                                  by one window as wide as any margin)
    ending(s) -> bool             whether the game's own solver takes `s`
    solve_ending(s, alpha, beta, counter) -> int   the solver's value of `s` (fail-soft
                                  in (alpha, beta)), its nodes added to counter[0]
    margin_ceiling(s, alpha) -> int   at least the final margin the side to move can
                                  reach; the solver fails a node low at once where it
                                  is alpha or less (a game may answer more, unlooked,
                                  where that is out of reach)

A game of more than two players gives, in place of result, margin, evaluate(s) and
solvable (`out` an int64 array of one slot per player):
    returns(s, out) -> bool       whether the game is over; if so each player's return
                                  (its final score, higher is better) into out
    evaluate(s, out)              each player's heuristic value into out
    moves_for(s, player, out) -> n        the moves `player` would have if it were its
                                          turn (none when it is out of the game)
    play_for(s, player, move, next) -> s  `player` plays `move` and the turn goes to
                                          `next` (`play` is it with the rules' next)

Values are per player, never per colour: an evaluation or an outcome is a tuple with one
entry per player, in turn-order index (player 0 moves first in the start position).
"""

from __future__ import annotations

import functools
import random
from types import ModuleType, SimpleNamespace
from typing import Callable, Protocol, Sequence

import attrs
import numpy as np

from games.kernel import interpreted_namespace
from games.text import quote

#: `result(s)` of a position whose game goes on.
ONGOING = 2

#: Scale of evaluations: one unit of a game's natural material (a stone, a disc) is 100.
CENTI = 100

#: The name of every game's hand-set evaluation (its `evaluation` module, weighted by its
#: weights.json).
CLASSIC = "classic"


class GameError(ValueError):
    """Base of the errors a game raises on bad input; the message quotes the input."""


class UnknownGameError(GameError):
    """No registered game has this name."""


class BadParameterError(GameError):
    """A `setgame` parameter is unknown or has an impossible value."""


class BoardTextError(GameError):
    """A board text does not describe a legal position of the game."""


class NotationError(GameError):
    """A move token is not in the game's move syntax."""


class IllegalMoveError(GameError):
    """A move token is well formed but not legal in the position."""


@attrs.frozen
class Outcome:
    """The result of a finished game.

    Attributes:
        returns: one value per player: 1 for a win, -1 for a loss, 0 for a draw in
            two-player games; for more players, higher is better (a ranking score).
        winner: the index of the winning player, or None for a draw.
        reason: a short human-readable cause ("no move", "connected", ...).
        margin: where the game scores a result by a count (discs, marbles), that count
            per player from each player's view (e.g. the disc difference); else None.
    """

    returns: tuple[int, ...]
    winner: int | None
    reason: str
    margin: tuple[int, ...] | None = None


class Position:
    """A position of `game` as the edge of the engine holds it: the kernel state `s`,
    each field of the type `game.rules.STATE_TYPES` names (so a compiled kernel is
    always called with the same types), read and played through the game's kernels run
    interpreted. Immutable and hashable; equal when the game and state are.

    Contract: `play(m)` is only called with `m` in `legal_moves()`. `outcome()` is None
    exactly while the game goes on; `legal_moves()` is empty when the game is over.
    """

    __slots__ = ("game", "s", "_legal")

    def __init__(self, game: "Game", s: tuple):
        self.game = game
        self.s = tuple(kind(value) for kind, value in zip(game.rules.STATE_TYPES, s, strict=True))
        self._legal: tuple[int, ...] | None = None

    @property
    def _rules(self) -> SimpleNamespace:
        return interpreted_namespace(self.game.rules)

    @property
    def key(self) -> int:
        return int(self._rules.key(self.s))

    @property
    def to_move(self) -> int:
        return int(self._rules.to_move(self.s))

    def legal_moves(self) -> list[int]:
        """The legal moves, worked out once a position (parsing a move text asks for them
        again each time) and returned as a new list each call."""
        if self._legal is None:
            rules = self._rules
            out = np.empty(rules.MAX_MOVES, dtype=np.int64)
            self._legal = tuple(out[:rules.legal_moves(self.s, out)].tolist())
        return list(self._legal)

    def play(self, move: int) -> "Position":
        return Position(self.game, self._rules.play(self.s, np.int64(move)))

    def outcome(self) -> "Outcome | None":
        return self.game.outcome(self)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Position) and other.game.name == self.game.name
                and tuple(map(int, other.s)) == tuple(map(int, self.s)))

    def __hash__(self) -> int:
        return hash((self.game.name, tuple(map(int, self.s))))

    def __repr__(self) -> str:
        return f"Position({self.game.name}, {self.game.format_board(self)!r})"


class Game(Protocol):
    """A game's descriptor: its kernels (`rules`), construction, notation and outcome of
    its positions.

    Attributes:
        name: the wire name `setgame` takes.
        rules: the module of the game's kernels (the contract in this module's docstring).
        listing_order: where `games` lists the game (lowest first; ties by name).
        parameters: the names of the `setgame` parameters the start position takes.
        num_players: 2 or 3.
        zero_sum: whether the returns of every outcome sum to zero.
        player_names: how the board text names each player, by index.
        side_names: how people name each player's side, by index (its colour).
        white_player: the index the UCI clocks `wtime`/`winc` refer to (two-player
            games), or None where the game has no such notion.
        fixtures: the module of the game's bench data: BENCH_PERFT_DEPTH (the perft
            depth the bench measures from the start), BENCH_POSITIONS (board texts the
            bench searches), BENCH_DEPTH (its fixed depth) and BENCH_NODES (its pinned
            total node count).
        evaluation: the module of the evaluation kernel the searches call (`evaluate`).
        evaluations: the names of the evaluations the game has, its default first
            (every game has CLASSIC, the hand-set one its weights.json weights);
            `with_evaluation(name)` is the descriptor that evaluates with another.
        kernel_name: the name the game's searches are specialised, compiled and cached
            under: one per evaluation.
        training: the module of the game's pattern training (its expert games, its
            positions as rows of bitboards, the features of its patterns), imported at
            the first read; None where the game has none.
        parts: the module of the game's table of small parts (its canonical parts and
            how to solve them), or None where the game has none.
        rivals: for a game of more than two players, the module of its rival models
            (`MODELS`, `MODEL_COUNT`, `SCRATCH` and the kernel `predict(s, moves, count,
            out, scratch)`: each model's probability of each move of the player to
            move), which the tree search weighs by their predictions; None where the
            game has none.
    """

    name: str
    rules: ModuleType
    listing_order: int
    parameters: tuple[str, ...]
    num_players: int
    zero_sum: bool
    player_names: tuple[str, ...]
    side_names: tuple[str, ...]
    white_player: int | None
    fixtures: ModuleType
    evaluation: ModuleType
    evaluations: tuple[str, ...]
    kernel_name: str
    training: ModuleType | None
    parts: ModuleType | None
    rivals: ModuleType | None

    def with_evaluation(self, name: str) -> "Game":
        """This game evaluating with its evaluation `name` (one of `evaluations`); raises
        KeyError for another name."""

    def initial_state(self, params: dict[str, str]) -> Position:
        """The start position; raises BadParameterError for an unknown or bad parameter."""

    def parse_board(self, tokens: Sequence[str]) -> Position:
        """A position from board-text tokens (rows, side to move, `key=value` fields).

        Raises BoardTextError quoting the offending token.
        """

    def format_board(self, position: Position) -> str:
        """The board text of `position`; `parse_board(format_board(p).split()) == p`."""

    def parse_move(self, position: Position, text: str) -> int:
        """The move `text` names in `position`.

        Raises NotationError when `text` is not a move token of the game and
        IllegalMoveError when it is one but not legal in `position`.
        """

    def format_move(self, position: Position, move: int) -> str:
        """The token of `move`, a legal move of `position`; inverse of `parse_move`."""

    def evaluate(self, position: Position) -> tuple[int, ...]:
        """A heuristic value per player in centi-units (CENTI = one stone/disc)."""

    def evaluation_terms(self, position: Position) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """The terms `evaluate` sums, each as (name, value per player): a feature times
        its weight. Their sums per player are `evaluate`'s values, up to the rounding and
        the rules outside the weights that the game's evaluation documents."""

    def outcome(self, position: Position) -> Outcome | None:
        """The result of a finished position, None while the game goes on."""

    def phase(self, position: Position) -> int:
        """The phase of the game `position` is in: OPENING, MIDDLE_GAME or ENDGAME, from
        the position alone (what is left on the board: empty squares, pieces), so that
        the same position has the same phase in every game that reaches it."""

    def picture(self, position: Position) -> list[str]:
        """A human-readable drawing of the board, a line per list item."""

    def board_images(self, position: Position) -> Sequence[tuple[Position, Callable[[int], int]]]:
        """`position` and its images under the board's symmetries that the rules respect
        (`position` itself first), each with the map that takes a move of the image to
        the same move of `position`: what lets an opening book that holds one of them
        answer for all. `only_itself` where the game uses none."""


#: The phases of a game (`Game.phase`), named in PHASE_NAMES.
OPENING, MIDDLE_GAME, ENDGAME = 0, 1, 2
PHASE_NAMES = ("opening", "middle game", "endgame")


def phase_by(left: int, middle_game_below: int, endgame_at: int) -> int:
    """The phase of a position with `left` of what a game uses up (empty squares,
    pieces): the opening down to `middle_game_below`, the endgame from `endgame_at` down."""
    return OPENING if left >= middle_game_below else MIDDLE_GAME if left > endgame_at else ENDGAME


def only_itself(position: Position) -> tuple[tuple[Position, Callable[[int], int]], ...]:
    """The `board_images` of a game that uses no symmetry: the position alone."""
    return ((position, _same_move),)


def _same_move(move: int) -> int:
    return move


class OneEvaluation:
    """The evaluation members of a descriptor whose game has one evaluation (its
    `evaluation` module), hand-set: `classic`."""

    evaluations: tuple[str, ...] = (CLASSIC,)
    name: str

    @property
    def kernel_name(self) -> str:
        return self.name

    def with_evaluation(self, name: str) -> "OneEvaluation":
        if name not in self.evaluations:
            raise KeyError(name)
        return self


class SeveralEvaluations:
    """The evaluation members of a descriptor whose game has several evaluations: the
    class's EVALUATIONS (name -> module; the first the default, whose kernels go by the
    game's name), one descriptor per evaluation (`with_evaluation`)."""

    EVALUATIONS: dict[str, ModuleType]
    name: str

    def __init__(self, evaluation_name: str | None = None):
        default = next(iter(self.EVALUATIONS))
        self.evaluation_name = evaluation_name or default
        self.evaluation = self.EVALUATIONS[self.evaluation_name]  # KeyError for an unknown name
        self.kernel_name = self.name if self.evaluation_name == default else f"{self.name}-{self.evaluation_name}"

    @property
    def evaluations(self) -> tuple[str, ...]:
        return tuple(self.EVALUATIONS)

    def with_evaluation(self, name: str) -> "SeveralEvaluations":
        return self if name == self.evaluation_name else _variant(type(self), name)


@functools.cache
def _variant(descriptor: type, evaluation_name: str) -> SeveralEvaluations:
    return descriptor(evaluation_name)


def zobrist_keys(seed: int, count: int) -> list[int]:
    """`count` 64-bit keys from a fixed seed, identical in every process.

    Hash files store keys, so the keys must never depend on the process; a change of
    seed or layout must come with a new `KEY_SCHEME` in the game's rules.
    """
    rng = random.Random(seed)
    return [rng.getrandbits(64) for _ in range(count)]


def check_params(game: str, params: dict[str, str], allowed: Sequence[str] = ()) -> None:
    """Refuse a `setgame` parameter of `game` that is not in `allowed`: raises
    BadParameterError quoting it."""
    for key, value in params.items():
        if key not in allowed:
            takes = f"only {', '.join(allowed)}" if allowed else "no parameter"
            raise BadParameterError(f"{game} takes {takes}, got {quote(key + '=' + value)}")


def split_fields(tokens: Sequence[str], allowed: Sequence[str]) -> dict[str, str]:
    """Parse `key=value` tokens, refusing unknown keys and repeats.

    Raises BoardTextError quoting the offending token.
    """
    fields: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not value or key not in allowed:
            raise BoardTextError(f"unexpected board field {quote(token)}")
        if key in fields:
            raise BoardTextError(f"repeated board field {quote(token)}")
        fields[key] = value
    return fields


def parse_grid(tokens: Sequence[str], pieces: str, rank8_first: bool = True) -> list[int]:
    """The bitboards of an 8x8 board text's rows token, one per character of `pieces`.

    `tokens` is a whole board text (rows, side to move, fields...); its first token must
    be 8 rows of 8 cells joined by `/`, each cell `.` or a character of `pieces`. With
    `rank8_first` the first row is rank 8 (square 56..63), else it is square 0..7.
    Raises BoardTextError quoting the offending token when the rows or the side to move
    are missing or malformed.
    """
    if len(tokens) < 2:
        raise BoardTextError(f"board text needs rows and a side to move, got {quote(' '.join(tokens))}")
    rows = tokens[0].split("/")
    if len(rows) != 8:
        raise BoardTextError(f"expected 8 rows, got {len(rows)} in {quote(tokens[0])}")
    boards = [0] * len(pieces)
    for row_index, row in enumerate(rows):
        if len(row) != 8:
            raise BoardTextError(f"row {row_index + 1} must have 8 cells: {quote(row)}")
        base = (7 - row_index if rank8_first else row_index) * 8
        for file, cell in enumerate(row):
            if cell != ".":
                kind = pieces.find(cell)
                if kind < 0:
                    raise BoardTextError(f"bad cell {quote(cell)} in row {quote(row)}")
                boards[kind] |= 1 << (base + file)
    return boards


#: The 64 squares of an 8x8 board (a bitboard kept as a signed 64-bit integer reads
#: negative when its top square is set).
FULL_64 = (1 << 64) - 1


def format_grid(boards: Sequence[int], pieces: str, rank8_first: bool = True) -> list[str]:
    """The 8 rows of an 8x8 board, as `parse_grid` reads them (first board wins a
    square claimed twice)."""
    cells = ["."] * 64
    for piece, board in reversed(list(zip(pieces, boards))):  # the first board written last
        board = int(board) & FULL_64
        while board:
            low = board & -board
            cells[low.bit_length() - 1] = piece
            board ^= low
    line = "".join(cells)
    order = range(7, -1, -1) if rank8_first else range(8)
    return [line[row * 8:row * 8 + 8] for row in order]


def square_name(square: int) -> str:
    """Chess-style name of a square index on an 8x8 board (a1 = 0, h1 = 7, h8 = 63)."""
    return "abcdefgh"[square & 7] + str((square >> 3) + 1)


def parse_square(text: str) -> int:
    """The index of an 8x8 square name such as `e2`; raises NotationError."""
    if len(text) != 2 or text[0] not in "abcdefgh" or text[1] not in "12345678":
        raise NotationError(f"bad square {quote(text)}")
    return (ord(text[1]) - ord("1")) * 8 + ord(text[0]) - ord("a")
