"""Abalone rules over bitboards of the padded hex grid held in Python ints.

The kernels (`generate_moves`, `has_move`, the `MOVE_EFFECTS` table) are plain functions
and data of ints so that a compiled core can mirror them one for one; `AbaloneState` and
`AbaloneGame` wrap them behind the `games.base` protocols. Cells, directions and the
move int layout are in `games.abalone.hexboard`.

Move generation works on whole boards, one direction at a time. For the direction d of
step s, `empty >> s` (or `<< -s`) marks the cells whose neighbour in d is empty. Along an
axis of positive step u, `own & own << u` marks the cells c with c and c - u own (pairs)
and `pairs & pairs << u` the cells c with c, c - u and c - 2u own (triples):

- in-line, moving +u: the front marble is c itself; the move is free when c + u is empty
  (a single marble, a pair or a triple), a push of one when c + u holds an enemy marble
  and c + 2u is empty or off the board (pairs and triples), a push of two when c + u and
  c + 2u hold enemy marbles and c + 3u is empty or off the board (triples only). Moving
  -u, the same with the runs shifted to their other end. An own marble behind the enemy
  column, or a column as long as the pushers' (or longer), leaves none of these masks
  set: the push is not a move. A fourth own marble in a line never counts: only the
  three in front push.
- broadside, for each of the four directions off the axis: a pair or triple whose every
  marble has an empty neighbour in that direction (the empty-neighbour mask ANDed with
  itself shifted along the axis).

Playing a move XORs fixed masks into the boards (`MOVE_EFFECTS`, indexed by the move's
low 16 bits): the marbles that leave and arrive, the enemy marbles pushed (the first
enemy cell becomes own, the cell behind the column becomes enemy unless it is off the
board, when the mover's score goes up by one).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from games.base import Outcome, zobrist_keys
from games.abalone import evaluation, fixtures, notation
from games.abalone.hexboard import (
    AXIS_STEPS,
    CELLS,
    INDEX_OF,
    MAX_PLIES,
    NEGATIVE_DIRECTIONS,
    ON_BOARD,
    ORDER_BROADSIDE_2,
    ORDER_BROADSIDE_3,
    ORDER_INLINE_2,
    ORDER_INLINE_3,
    ORDER_PUSH,
    ORDER_PUSH_OFF,
    ORDER_SINGLE,
    POSITIVE_DIRECTIONS,
    RIM,
    STEPS,
    TABLE_MASK,
    WIDTH,
    WINNING_SCORE,
    is_inline,
    move_int,
)

BLACK, WHITE = 0, 1

#: White fills the top two lines and the middle three cells of the third; black the same
#: at the bottom.
WHITE_START = sum(1 << INDEX_OF[x, y] for y in (0, 1) for x in range(6 if y else 5)) | sum(
    1 << INDEX_OF[x, 2] for x in (2, 3, 4))
BLACK_START = sum(1 << INDEX_OF[x, y] for y in (7, 8) for x in range(6 if y == 7 else 5)) | sum(
    1 << INDEX_OF[x, 6] for x in (2, 3, 4))

# Keys: 0..120 black marbles, 121..241 white marbles (by bit index, border cells unused),
# 242 white to move, 243..249 black's score 0..6, 250..256 white's score 0..6, 257..607
# turn 0..350. Changing the seed or this layout invalidates saved hash files: bump
# KEY_SCHEME with it.
KEY_SCHEME = 1
_CELL_COUNT = WIDTH * WIDTH
_KEYS = zobrist_keys(0xABA10E, 2 * _CELL_COUNT + 1 + 2 * (WINNING_SCORE + 1) + MAX_PLIES + 1)
_MARBLE_KEYS = (_KEYS[:_CELL_COUNT], _KEYS[_CELL_COUNT:2 * _CELL_COUNT])
_SIDE_KEY = _KEYS[2 * _CELL_COUNT]
_SCORE_BASE = 2 * _CELL_COUNT + 1
_SCORE_KEYS = (_KEYS[_SCORE_BASE:_SCORE_BASE + WINNING_SCORE + 1],
               _KEYS[_SCORE_BASE + WINNING_SCORE + 1:_SCORE_BASE + 2 * WINNING_SCORE + 2])
_TURN_KEYS = _KEYS[_SCORE_BASE + 2 * WINNING_SCORE + 2:]
#: What a ply changes whatever the move: the side to move and the turn.
_PLY_KEYS = tuple(_SIDE_KEY ^ _TURN_KEYS[turn] ^ _TURN_KEYS[turn + 1] for turn in range(MAX_PLIES))
#: A marble pushed off raises the mover's score by one.
_SCORE_STEP_KEYS = tuple(
    tuple(keys[score] ^ keys[score + 1] for score in range(WINNING_SCORE)) for keys in _SCORE_KEYS)


def _bases(direction: int, axis: int) -> tuple[int, ...]:
    """The move ints, anchor 0, less one, an in-line direction produces: single, pair,
    triple, and the pushes 2v1, 3v1, 3v2, each without then with a marble pushed off.

    Less one because the generator adds a cell's `bit_length`, its index plus one.
    """
    return tuple(base - 1 for base in (
        move_int(0, direction, 1, axis, 0, ORDER_SINGLE),
        move_int(0, direction, 2, axis, 0, ORDER_INLINE_2),
        move_int(0, direction, 3, axis, 0, ORDER_INLINE_3),
        move_int(0, direction, 2, axis, 1, ORDER_PUSH),
        move_int(0, direction, 3, axis, 1, ORDER_PUSH),
        move_int(0, direction, 3, axis, 2, ORDER_PUSH),
        move_int(0, direction, 2, axis, 1, ORDER_PUSH_OFF),
        move_int(0, direction, 3, axis, 1, ORDER_PUSH_OFF),
        move_int(0, direction, 3, axis, 2, ORDER_PUSH_OFF),
    ))


#: Per axis: (positive step u, the directions of steps +u and -u, the in-line bases
#: moving +u and -u, the cells whose neighbour +u / -u is off the board, and for each of
#: the four broadside directions its index and the pair and triple bases, less one).
_AXES = tuple(
    (
        AXIS_STEPS[axis],
        POSITIVE_DIRECTIONS[axis],
        NEGATIVE_DIRECTIONS[axis],
        _bases(POSITIVE_DIRECTIONS[axis], axis),
        _bases(NEGATIVE_DIRECTIONS[axis], axis),
        RIM[POSITIVE_DIRECTIONS[axis]],
        RIM[NEGATIVE_DIRECTIONS[axis]],
        tuple(
            (direction,
             move_int(0, direction, 2, axis, 0, ORDER_BROADSIDE_2) - 1,
             move_int(0, direction, 3, axis, 0, ORDER_BROADSIDE_3) - 1)
            for direction in range(6) if direction % 3 != axis
        ),
    )
    for axis in range(3)
)


def _emit(moves: list[int], mask: int, base: int) -> None:
    """Append `base - 1 + bit_length` for each cell of `mask`: `base | cell` when `base`
    is a move int with anchor 0 less one (the `_bases` convention)."""
    append = moves.append
    while mask:
        top = mask.bit_length()
        append(base + top)
        mask ^= 1 << (top - 1)


def generate_moves(own: int, opp: int) -> list[int]:
    """The legal moves of the side owning `own`, best-first by their order field (see
    `games.abalone.hexboard`).

    The frequent masks (in-line and broadside moves) are emitted by loops written out
    here, the rare pushes through `_emit`: a call per mask costs as much as a move.
    Each loop takes the highest cell first; the bases are move ints less one (`_bases`),
    so that base + bit_length is the move.
    """
    empty = ON_BOARD ^ own ^ opp
    # next_empty[d]: the cells whose neighbour in direction d is empty.
    next_empty = (empty >> 1, empty << 10, empty << 11, empty << 1, empty >> 10, empty >> 11)
    moves: list[int] = []
    append = moves.append
    emit = _emit
    for u, plus, minus, forward, backward, rim_forward, rim_backward, broadsides in _AXES:
        pairs = own & (own << u)
        triples = pairs & (pairs << u)

        # Moving +u: pairs and triples have their front marble at the anchor cell.
        free = next_empty[plus]
        mask = own & free
        base = forward[0]
        while mask:
            top = mask.bit_length()
            append(base + top)
            mask ^= 1 << (top - 1)
        if pairs:
            mask = pairs & free
            base = forward[1]
            while mask:
                top = mask.bit_length()
                append(base + top)
                mask ^= 1 << (top - 1)
            mask = triples & free
            base = forward[2]
            while mask:
                top = mask.bit_length()
                append(base + top)
                mask ^= 1 << (top - 1)
            if pairs & (opp >> u):
                # Enemy columns of one with an empty cell behind, or the edge behind.
                one = (opp & free) >> u
                one_off = (opp & rim_forward) >> u
                if pairs & one:
                    emit(moves, pairs & one, forward[3])
                if pairs & one_off:
                    emit(moves, pairs & one_off, forward[6])
                if triples & (opp >> u):
                    # The same, and enemy columns of two.
                    if triples & one:
                        emit(moves, triples & one, forward[4])
                    if triples & one_off:
                        emit(moves, triples & one_off, forward[7])
                    two = triples & ((opp & one) >> u)
                    if two:
                        emit(moves, two, forward[5])
                    two = triples & ((opp & one_off) >> u)
                    if two:
                        emit(moves, two, forward[8])

        # Moving -u: the front marble is the other end, u (pair) or 2u (triple) lower.
        free = next_empty[minus]
        mask = own & free
        base = backward[0]
        while mask:
            top = mask.bit_length()
            append(base + top)
            mask ^= 1 << (top - 1)
        if not pairs:
            continue
        back_pairs = pairs >> u
        back_triples = triples >> (u + u)
        mask = back_pairs & free
        base = backward[1]
        while mask:
            top = mask.bit_length()
            append(base + top)
            mask ^= 1 << (top - 1)
        mask = back_triples & free
        base = backward[2]
        while mask:
            top = mask.bit_length()
            append(base + top)
            mask ^= 1 << (top - 1)
        if back_pairs & (opp << u):
            one = (opp & free) << u
            one_off = (opp & rim_backward) << u
            if back_pairs & one:
                emit(moves, back_pairs & one, backward[3])
            if back_pairs & one_off:
                emit(moves, back_pairs & one_off, backward[6])
            if back_triples & (opp << u):
                if back_triples & one:
                    emit(moves, back_triples & one, backward[4])
                if back_triples & one_off:
                    emit(moves, back_triples & one_off, backward[7])
                two = back_triples & ((opp & one) << u)
                if two:
                    emit(moves, two, backward[5])
                two = back_triples & ((opp & one_off) << u)
                if two:
                    emit(moves, two, backward[8])

        # Broadside: every marble of the line needs an empty neighbour that way.
        for direction, pair_base, triple_base in broadsides:
            free = next_empty[direction]
            both = free & (free << u)
            mask = pairs & both
            while mask:
                top = mask.bit_length()
                append(pair_base + top)
                mask ^= 1 << (top - 1)
            mask = triples & both & (both << u)
            while mask:
                top = mask.bit_length()
                append(triple_base + top)
                mask ^= 1 << (top - 1)
    moves.sort(reverse=True)
    return moves


def has_move(own: int, opp: int) -> bool:
    """Whether the side owning `own` has a legal move: almost always some marble has an
    empty neighbour; else only a push can move."""
    empty = ON_BOARD ^ own ^ opp
    if own & ((empty >> 1) | (empty << 1) | (empty >> 10) | (empty << 10)
              | (empty >> 11) | (empty << 11)):
        return True
    return bool(generate_moves(own, opp))


def _effects() -> list[tuple[int, int, int, int, int] | None]:
    """MOVE_EFFECTS[move & TABLE_MASK] = (own XOR mask, enemy XOR mask, marbles pushed off
    (0 or 1), key XOR when black moves, key XOR when white moves) for every move the
    geometry of the board allows, None elsewhere."""
    table: list[tuple[int, int, int, int, int] | None] = [None] * (TABLE_MASK + 1)
    on = set(CELLS)
    for anchor in CELLS:
        for direction in range(6):
            step = STEPS[direction]
            for count in (1, 2, 3):
                for axis in range(3):
                    if count == 1 and axis != direction % 3:
                        continue
                    inline = is_inline(direction, count, axis)
                    line_step = step if inline else AXIS_STEPS[axis]
                    line = [anchor - k * line_step for k in range(count)]
                    if not all(cell in on for cell in line):
                        continue
                    for pushed in range(count if inline else 1):
                        if inline:
                            target = anchor + step
                            column = [target + k * step for k in range(pushed)]
                            if target not in on or not all(cell in on for cell in column):
                                continue
                            own_xor = 1 << target | 1 << line[-1]
                            opp_xor = 0
                            off = 0
                            if pushed:
                                behind = target + pushed * step
                                opp_xor = 1 << target
                                if behind in on:
                                    opp_xor |= 1 << behind
                                else:
                                    off = 1
                        else:
                            targets = [cell + step for cell in line]
                            if not all(cell in on for cell in targets):
                                continue
                            own_xor = sum(1 << cell for cell in line + targets)
                            opp_xor = off = 0
                        keys = []
                        for mover in (BLACK, WHITE):
                            key = 0
                            for cell in CELLS:
                                if own_xor >> cell & 1:
                                    key ^= _MARBLE_KEYS[mover][cell]
                                if opp_xor >> cell & 1:
                                    key ^= _MARBLE_KEYS[mover ^ 1][cell]
                            keys.append(key)
                        table[move_int(anchor, direction, count, axis, pushed)] = (
                            own_xor, opp_xor, off, keys[0], keys[1])
    return table


MOVE_EFFECTS = _effects()


def compute_key(black: int, white: int, to_move: int, black_score: int, white_score: int,
                turn: int) -> int:
    """The Zobrist key of a position, from scratch."""
    key = (_SIDE_KEY if to_move == WHITE else 0) ^ _SCORE_KEYS[BLACK][black_score] \
        ^ _SCORE_KEYS[WHITE][white_score] ^ _TURN_KEYS[turn]
    for colour, board in ((BLACK, black), (WHITE, white)):
        keys = _MARBLE_KEYS[colour]
        while board:
            low = board & -board
            key ^= keys[low.bit_length() - 1]
            board ^= low
    return key


_new_state = tuple.__new__


class AbaloneState(NamedTuple):
    """An Abalone position: the two bitboards, the side to move, the Zobrist key, the
    marbles each side has pushed off and the plies played."""

    black: int
    white: int
    to_move: int
    key: int
    black_score: int
    white_score: int
    turn: int

    def legal_moves(self) -> list[int]:
        black, white, to_move, _, black_score, white_score, turn = self
        if black_score >= WINNING_SCORE or white_score >= WINNING_SCORE or turn >= MAX_PLIES:
            return []
        if to_move == BLACK:
            return generate_moves(black, white)
        return generate_moves(white, black)

    def play(self, move: int) -> "AbaloneState":
        black, white, to_move, key, black_score, white_score, turn = self
        own_xor, opp_xor, off, black_key, white_key = MOVE_EFFECTS[move & TABLE_MASK]
        key ^= _PLY_KEYS[turn]
        if to_move == BLACK:
            key ^= black_key
            if off:
                key ^= _SCORE_STEP_KEYS[BLACK][black_score]
                black_score += 1
            return _new_state(AbaloneState, (black ^ own_xor, white ^ opp_xor, WHITE, key,
                                             black_score, white_score, turn + 1))
        key ^= white_key
        if off:
            key ^= _SCORE_STEP_KEYS[WHITE][white_score]
            white_score += 1
        return _new_state(AbaloneState, (black ^ opp_xor, white ^ own_xor, BLACK, key,
                                         black_score, white_score, turn + 1))

    def outcome(self) -> Outcome | None:
        black, white, to_move, _, black_score, white_score, turn = self
        if black_score >= WINNING_SCORE or white_score >= WINNING_SCORE or turn >= MAX_PLIES:
            return final_outcome(black_score, white_score)
        if to_move == BLACK:
            if has_move(black, white):
                return None
        elif has_move(white, black):
            return None
        return no_move_outcome(to_move, black_score, white_score)


_OUTCOMES: dict[tuple[int, int, int], Outcome] = {}


def final_outcome(black_score: int, white_score: int) -> Outcome:
    """The result once a side has pushed off six marbles or the ply limit is reached:
    six off wins, else the side that pushed off more, equal is a draw."""
    cached = _OUTCOMES.get((black_score, white_score, -1))
    if cached is not None:
        return cached
    margin = (black_score - white_score, white_score - black_score)
    if black_score >= WINNING_SCORE:
        outcome = Outcome((1, -1), BLACK, f"six off {black_score}-{white_score}", margin)
    elif white_score >= WINNING_SCORE:
        outcome = Outcome((-1, 1), WHITE, f"six off {black_score}-{white_score}", margin)
    elif black_score != white_score:
        winner = BLACK if black_score > white_score else WHITE
        returns = (1, -1) if winner == BLACK else (-1, 1)
        outcome = Outcome(returns, winner, f"ply limit {black_score}-{white_score}", margin)
    else:
        outcome = Outcome((0, 0), None, f"ply limit {black_score}-{white_score}", margin)
    _OUTCOMES[black_score, white_score, -1] = outcome
    return outcome


def no_move_outcome(to_move: int, black_score: int, white_score: int) -> Outcome:
    """The side to move without a legal move has lost (a position only a board text can
    set up: every marble boxed in and no push)."""
    cached = _OUTCOMES.get((black_score, white_score, to_move))
    if cached is None:
        margin = (black_score - white_score, white_score - black_score)
        returns = (-1, 1) if to_move == BLACK else (1, -1)
        cached = Outcome(returns, to_move ^ 1, "no move", margin)
        _OUTCOMES[black_score, white_score, to_move] = cached
    return cached


def make_state(black: int, white: int, to_move: int, black_score: int = 0,
               white_score: int = 0, turn: int = 0) -> AbaloneState:
    """A state with its key computed from scratch."""
    return AbaloneState(black, white, to_move,
                        compute_key(black, white, to_move, black_score, white_score, turn),
                        black_score, white_score, turn)


class AbaloneGame:
    """The Abalone rules descriptor (see the package docstring)."""

    name = "abalone"
    listing_order = 5
    num_players = 2
    zero_sum = True
    player_names = ("2", "1")
    white_player = WHITE
    key_scheme = KEY_SCHEME
    bench_perft_depth = fixtures.BENCH_PERFT_DEPTH
    bench_positions = fixtures.BENCH_POSITIONS
    bench_depth = fixtures.BENCH_DEPTH
    bench_nodes = fixtures.BENCH_NODES

    def initial_state(self, params: dict[str, str]) -> AbaloneState:
        notation.check_no_params(params)
        return make_state(BLACK_START, WHITE_START, BLACK)

    def parse_board(self, tokens: Sequence[str]) -> AbaloneState:
        return make_state(*notation.parse_board(tokens))

    def format_board(self, state: AbaloneState) -> str:
        return notation.format_board(state.black, state.white, state.to_move,
                                     state.black_score, state.white_score, state.turn)

    def parse_move(self, state: AbaloneState, text: str) -> int:
        return notation.parse_move(text, state.legal_moves())

    def format_move(self, state: AbaloneState, move: int) -> str:
        return notation.format_move(move)

    def evaluate(self, state: AbaloneState) -> tuple[int, ...]:
        black, white, to_move, _, black_score, white_score, _ = state
        return evaluation.evaluate(black, white, to_move, black_score, white_score)

    def picture(self, state: AbaloneState) -> list[str]:
        return notation.picture(state.black, state.white, state.to_move,
                                state.black_score, state.white_score, state.turn)

    def solvable(self, state: AbaloneState) -> bool:
        return False


GAME = AbaloneGame()
