"""Knight Isolation rules over a bitboard of blocked squares and three knight squares.

Eliminations need no decision, so `play` carries them out at once: after a move the turn
passes to the next player still in, and a player found without a move there is out
before anyone else moves, exactly when the referee would find it. So a state's side to
move always has a move unless the game is over.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from games.base import Outcome, zobrist_keys
from games.isolation import evaluation, fixtures, notation
from games.isolation.javarandom import start_squares

PLAYERS = 3
#: Global turns the referee plays at most.
MAX_TURNS = 62
ALL_IN = 0b111


def _knight_masks() -> tuple[int, ...]:
    masks = []
    for square in range(64):
        rank, file = divmod(square, 8)
        mask = 0
        for dr, df in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
            if 0 <= rank + dr < 8 and 0 <= file + df < 8:
                mask |= 1 << ((rank + dr) * 8 + file + df)
        masks.append(mask)
    return tuple(masks)


#: The squares a knight on each square attacks.
KNIGHT = _knight_masks()

# Keys: 0..63 blocked squares, 64 + 64 * player + square a knight, 256 + player to move,
# 259 + player out. Changing them invalidates saved hash files: bump KEY_SCHEME with it.
KEY_SCHEME = 1
_KEYS = zobrist_keys(0x150_1A7E, 262)
_BLOCKED_KEYS = _KEYS[:64]
_KNIGHT_KEYS = (_KEYS[64:128], _KEYS[128:192], _KEYS[192:256])
_TURN_KEYS = _KEYS[256:259]
_OUT_KEYS = _KEYS[259:262]
_NEXT = ((1, 2, 0), (2, 0, 1), (0, 1, 2))


def move_mask(blocked: int, knights: tuple[int, int, int], player: int) -> int:
    """The squares `player`'s knight can jump to."""
    occupied = blocked | (1 << knights[0]) | (1 << knights[1]) | (1 << knights[2])
    return KNIGHT[knights[player]] & ~occupied


def compute_key(blocked: int, knights: tuple[int, int, int], to_move: int, alive: int) -> int:
    """The Zobrist key of a position, from scratch."""
    key = _TURN_KEYS[to_move]
    for square in range(64):
        if blocked >> square & 1:
            key ^= _BLOCKED_KEYS[square]
    for player in range(PLAYERS):
        key ^= _KNIGHT_KEYS[player][knights[player]]
        if not alive >> player & 1:
            key ^= _OUT_KEYS[player]
    return key


def turns_used(blocked: int, alive: int) -> int:
    """Global turns played: one per move (a blocked square) and one per elimination."""
    return blocked.bit_count() + PLAYERS - alive.bit_count()


_new_state = tuple.__new__


class IsolationState(NamedTuple):
    """A position: blocked squares, the three knights' squares, the side to move, the
    players still in (a bit per player), the scores of the players out (-1 while in),
    and the Zobrist key."""

    blocked: int
    knights: tuple[int, int, int]
    to_move: int
    alive: int
    scores: tuple[int, int, int]
    key: int

    def legal_moves(self) -> list[int]:
        if self.alive & (self.alive - 1) == 0 or turns_used(self.blocked, self.alive) >= MAX_TURNS:
            return []
        mask = move_mask(self.blocked, self.knights, self.to_move)
        moves = []
        while mask:
            low = mask & -mask
            moves.append(low.bit_length() - 1)
            mask ^= low
        return moves

    def play(self, move: int) -> "IsolationState":
        player = self.to_move
        return self.play_for(player, move, _NEXT[player][0])

    def moves_for(self, player: int) -> list[int]:
        """The moves `player` would have if it were its turn (none when it is out)."""
        if not self.alive >> player & 1:
            return []
        mask = move_mask(self.blocked, self.knights, player)
        moves = []
        while mask:
            low = mask & -mask
            moves.append(low.bit_length() - 1)
            mask ^= low
        return moves

    def play_for(self, player: int, move: int, next_player: int) -> "IsolationState":
        """`player` jumps to `move`, then the turn goes to `next_player` (who is put out
        if it cannot move, and so on in turn order). With `next_player` the rules' next
        player this is `play`; searches that let players move out of turn pass another."""
        blocked, knights, to_move, alive, scores, key = self
        origin = knights[player]
        blocked |= 1 << origin
        knight_keys = _KNIGHT_KEYS[player]
        key ^= _BLOCKED_KEYS[origin] ^ knight_keys[origin] ^ knight_keys[move] ^ _TURN_KEYS[to_move]
        if player == 0:
            knights = (move, knights[1], knights[2])
        elif player == 1:
            knights = (knights[0], move, knights[2])
        else:
            knights = (knights[0], knights[1], move)
        return settle(blocked, knights, next_player, alive, scores, key)

    def outcome(self) -> Outcome | None:
        alive = self.alive
        over = turns_used(self.blocked, alive) >= MAX_TURNS
        if alive & (alive - 1) and not over:
            return None
        scores = list(self.scores)
        winner = None
        if not alive & (alive - 1):
            winner = alive.bit_length() - 1
            declared = turns_used(self.blocked, alive) + 1 <= MAX_TURNS
            scores[winner] = PLAYERS - 1 if declared else 0
            reason = "last player standing" if declared else "turn limit"
            if not declared:
                winner = None
        else:
            reason = "turn limit"
        for player in range(PLAYERS):
            if scores[player] < 0:
                scores[player] = 0
        return Outcome(tuple(scores), winner, reason)


def settle(blocked: int, knights: tuple[int, int, int], to_move: int, alive: int,
           scores: tuple[int, int, int], key: int) -> IsolationState:
    """The state where `to_move`'s turn comes: players without a move are put out, in
    turn order, until one can move or the game is over. `key` must not include a
    side-to-move key yet."""
    while alive & (alive - 1) and turns_used(blocked, alive) < MAX_TURNS:
        if not alive >> to_move & 1:
            to_move = _NEXT[to_move][0]
            continue
        if move_mask(blocked, knights, to_move):
            break
        out = PLAYERS - alive.bit_count()
        scores = tuple(out if player == to_move else score for player, score in enumerate(scores))
        alive &= ~(1 << to_move)
        key ^= _OUT_KEYS[to_move]
        to_move = _NEXT[to_move][0]
    while not alive >> to_move & 1:  # a finished game names its survivor to move
        to_move = _NEXT[to_move][0]
    return _new_state(IsolationState, (blocked, knights, to_move, alive, scores, key ^ _TURN_KEYS[to_move]))


def make_state(blocked: int, knights: tuple[int, int, int], to_move: int, alive: int,
               out: tuple[int, ...] = ()) -> IsolationState:
    """A settled state with its key computed from scratch. `out` orders the players
    already out, first out first; without it they all score 0."""
    scores = tuple(-1 if alive >> player & 1 else out.index(player) if player in out else 0
                   for player in range(PLAYERS))
    key = compute_key(blocked, knights, to_move, alive) ^ _TURN_KEYS[to_move]
    return settle(blocked, knights, to_move, alive, scores, key)  # type: ignore[arg-type]


class IsolationGame:
    """The Knight Isolation rules descriptor (see the package docstring)."""

    name = "isolation"
    listing_order = 4
    num_players = PLAYERS
    zero_sum = False
    player_names = ("r", "g", "b")
    white_player = None
    key_scheme = KEY_SCHEME
    bench_perft_depth = fixtures.BENCH_PERFT_DEPTH
    bench_positions = fixtures.BENCH_POSITIONS
    bench_depth = fixtures.BENCH_DEPTH
    bench_nodes = fixtures.BENCH_NODES

    def initial_state(self, params: dict[str, str]) -> IsolationState:
        seed = notation.parse_seed(params)
        return make_state(0, start_squares(seed), 0, ALL_IN)

    def parse_board(self, tokens: Sequence[str]) -> IsolationState:
        return make_state(*notation.parse_board(tokens))

    def format_board(self, state: IsolationState) -> str:
        return notation.format_board(state.blocked, state.knights, state.to_move, state.alive,
                                     state.scores)

    def parse_move(self, state: IsolationState, text: str) -> int:
        return notation.parse_move(text, state.legal_moves())

    def format_move(self, state: IsolationState, move: int) -> str:
        return notation.format_move(move)

    def evaluate(self, state: IsolationState) -> tuple[int, ...]:
        return evaluation.evaluate(state.blocked, state.knights, state.to_move, state.alive, state.scores)

    def picture(self, state: IsolationState) -> list[str]:
        return notation.picture(state.blocked, state.knights, state.to_move, state.alive)

    def solvable(self, state: IsolationState) -> bool:
        return False


GAME = IsolationGame()
