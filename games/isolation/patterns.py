"""Knight Isolation pattern evaluation: tables of weights for what each knight sees
around it, trained by temporal differences on recorded games
(`scripts/train_td isolation`, docs/isolation.md).

Each player still in is valued by the sum of the weights of its features, with the
weights of the position's phase (`PHASE_FREE` free squares to a phase); a value
difference of VALUE_SCALE between two players is one unit of the logistic function of
their chance of finishing one ahead of the other, the scale on which the tree search
reads values (`search.mcts.REWARD_SCALE`). The features (`FEATURES`, as `player_features`
lists them):

- `exits`: the player's eight jumps as one tuple, each jump's square off the board or
  not free (0), free and a rival still in can jump there too (1), or free and its own
  (2): a base-3 number read in the angular order of `OFFSETS`, one weight for each
  configuration and its images under the eight symmetries of the square (a jump pattern
  turned or mirrored is the same pattern);
- `onward`: for each free jump, by whether a rival can jump there too and the free jumps
  onward from its square (0 to 7): what Warnsdorff's rule reads;
- `territory`: the free squares the knight reaches strictly first (as in `evaluation`),
  one weight per count;
- `order`: whether the player moves now, next, or last among the players still in;
- `reach`: the free squares at most two jumps away, linear.

Players out, and positions whose knights are walled off from each other (decided), are
valued as `evaluation` values them: below any player still in, and by their final
scores.

The weights are data: `pattern_weights.npy`, float32 (PHASES, WEIGHTS_SIZE), in value
units, read once at import and compiled in as a constant.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from games.isolation.evaluation import OUT_SCORE_STEP, OUT_VALUE, decided, free_squares, territories
from games.isolation.rules import KNIGHT, PLAYERS, SQUARE, U0, knight_spread
from games.kernel import kernel, popcount

WEIGHTS_FILE = Path(__file__).with_name("pattern_weights.npy")

#: Value units to one unit of the logistic function of two players' value difference.
VALUE_SCALE = 400.0
#: Free squares to a phase: phase = free // PHASE_FREE (a game starts with 61).
PHASE_FREE = 8
PHASES = 64 // PHASE_FREE
#: PHASE_OF[free squares]: the phase of a position.
PHASE_OF = np.array([min(free // PHASE_FREE, PHASES - 1) for free in range(65)], dtype=np.int64)

#: A knight's jumps (rank step, file step) in angular order: a quarter turn moves each
#: jump two places on, a mirror image reverses the order.
OFFSETS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
JUMPS = len(OFFSETS)
#: States of a jump's square in the `exits` tuple.
BLOCKED, SHARED, OWN = 0, 1, 2
EXIT_CONFIGS = 3 ** JUMPS


def _jump_squares() -> np.ndarray:
    """JUMP_SQUARE[square, j]: the square of jump j (OFFSETS) from `square`, -1 off the
    board."""
    table = np.full((64, JUMPS), -1, dtype=np.int64)
    for square in range(64):
        rank, file = divmod(square, 8)
        for j, (dr, df) in enumerate(OFFSETS):
            if 0 <= rank + dr < 8 and 0 <= file + df < 8:
                table[square, j] = 8 * (rank + dr) + file + df
    return table


def _jump_symmetries() -> list[tuple[int, ...]]:
    """The eight symmetries of the square as permutations of the jumps: perm[j] is where
    the symmetry takes jump j."""
    perms = []
    for swap in (False, True):
        for flip_rank in (1, -1):
            for flip_file in (1, -1):
                def image(dr: int, df: int) -> tuple[int, int]:
                    dr, df = dr * flip_rank, df * flip_file
                    return (df, dr) if swap else (dr, df)
                perms.append(tuple(OFFSETS.index(image(dr, df)) for dr, df in OFFSETS))
    return perms


def _exit_slots() -> tuple[np.ndarray, int]:
    """EXIT_SLOT[configuration]: the weight slot of an `exits` configuration, shared by
    its images under the jump symmetries; and the number of slots."""
    perms = _jump_symmetries()
    canonical = np.empty(EXIT_CONFIGS, dtype=np.int64)
    for config in range(EXIT_CONFIGS):
        digits = [config // 3 ** j % 3 for j in range(JUMPS)]
        images = []
        for perm in perms:
            moved = [0] * JUMPS
            for j, digit in enumerate(digits):
                moved[perm[j]] = digit
            images.append(sum(digit * 3 ** j for j, digit in enumerate(moved)))
        canonical[config] = min(images)
    _, slots = np.unique(canonical, return_inverse=True)
    return slots.astype(np.int64), int(slots.max()) + 1


JUMP_SQUARE = _jump_squares()
EXIT_SLOT, EXIT_SLOTS = _exit_slots()
#: The onward jumps counted apart (0 .. ONWARD_MAX).
ONWARD_MAX = 7

#: The features, each a block of a phase's weights: (name, size).
FEATURES = (("exits", EXIT_SLOTS), ("onward", 2 * (ONWARD_MAX + 1)), ("territory", 64), ("order", PLAYERS),
            ("reach", 1))
#: BLOCK_STARTS[b]: the first slot of feature b's block; the last entry is WEIGHTS_SIZE.
BLOCK_STARTS = tuple(int(start) for start in np.cumsum([0] + [size for _, size in FEATURES]))
EXITS, ONWARD, TERRITORY, ORDER, REACH = BLOCK_STARTS[:-1]
WEIGHTS_SIZE = BLOCK_STARTS[-1]
#: At most this many features of one player are set: exits, one per jump, territory,
#: order, reach.
MAX_FEATURES = 1 + JUMPS + 3


def read_weights(path: Path = WEIGHTS_FILE) -> np.ndarray:
    """The weights of `path`, float64 (PHASES, WEIGHTS_SIZE); zeros where there is no
    such file (nothing trained yet). Raises ValueError on a file of another shape."""
    if not path.exists():
        return np.zeros((PHASES, WEIGHTS_SIZE), dtype=np.float64)
    weights = np.load(path).astype(np.float64)
    if weights.shape != (PHASES, WEIGHTS_SIZE):
        raise ValueError(f"{path} holds weights of shape {weights.shape}, not {(PHASES, WEIGHTS_SIZE)}")
    return weights


WEIGHTS = read_weights()


@kernel
def player_features(s, player, free, owned, slots, values):
    """The features of `player` (still in) into slots[:n] (weight slots of a phase) and
    values[:n] (their values: 1, or the count of a linear feature); returns n. `free`
    is the free squares, `owned` the player's territory."""
    knights = (s[1], s[2], s[3])
    knight = knights[player]
    rivals = U0
    for other in range(PLAYERS):
        if other != player and (s[5] >> other) & 1:
            rivals |= KNIGHT[knights[other]]
    config = 0
    power = 1
    n = 1
    for j in range(JUMPS):
        target = JUMP_SQUARE[knight, j]
        if target >= 0 and free & SQUARE[target]:
            shared = 1 if rivals & SQUARE[target] else 0
            config += power * (OWN - shared)
            onward = popcount(KNIGHT[target] & free)
            if onward > ONWARD_MAX:
                onward = ONWARD_MAX
            slots[n] = ONWARD + shared * (ONWARD_MAX + 1) + onward
            values[n] = 1.0
            n += 1
        power *= 3
    slots[0] = EXITS + EXIT_SLOT[config]
    values[0] = 1.0
    slots[n] = TERRITORY + popcount(owned)
    values[n] = 1.0
    order = 0
    mover = s[4]
    while mover != player:
        if (s[5] >> mover) & 1:
            order += 1
        mover = (mover + 1) % PLAYERS
    slots[n + 1] = ORDER + order
    values[n + 1] = 1.0
    near = KNIGHT[knight] & free
    slots[n + 2] = REACH
    values[n + 2] = popcount(near | (knight_spread(near) & free))
    return n + 3


@kernel
def evaluate(s, out):
    """Each player's value of the position into out[:3] (red's, green's, blue's)."""
    free = free_squares(s)
    if decided(s, free, out):
        return
    owned = territories(s, free)
    weights = WEIGHTS[PHASE_OF[popcount(free)]]
    slots = np.empty(MAX_FEATURES, dtype=np.int64)
    values = np.empty(MAX_FEATURES, dtype=np.float64)
    scores = (s[6], s[7], s[8])
    for player in range(PLAYERS):
        if (s[5] >> player) & 1:
            n = player_features(s, player, free, owned[player], slots, values)
            total = 0.0
            for i in range(n):
                total += weights[slots[i]] * values[i]
            out[player] = np.int64(np.round(total))
        else:
            out[player] = OUT_VALUE + OUT_SCORE_STEP * scores[player]


@kernel
def open_features(s, slots, values, counts):
    """The features of each player still in at an open position (two players or more
    in, knights not walled off) into slots[p, :counts[p]] and values[p, :counts[p]]
    (`player_features`; counts[p] = 0 for a player out); returns the position's phase,
    or -1 (nothing written) when it is not open."""
    if popcount(np.uint64(s[5])) < 2:
        return -1
    free = free_squares(s)
    if decided(s, free, np.zeros(PLAYERS, dtype=np.int64)):
        return -1
    owned = territories(s, free)
    for player in range(PLAYERS):
        counts[player] = 0
        if (s[5] >> player) & 1:
            counts[player] = player_features(s, player, free, owned[player], slots[player], values[player])
    return PHASE_OF[popcount(free)]
