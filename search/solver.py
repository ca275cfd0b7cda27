"""The exact endgame solver: negamax to the end of the game, no evaluation.

Values are the game's final margin from the side to move's view (the kernel `margin`,
e.g. the disc difference), or its returns (+1, 0, -1) for games without a margin. The
solver first proves win, loss or draw with the null window (-1, 1), then the exact
margin on the proved side of it (`search.alphabeta`). Before searching a node's moves it
looks each one's position up in its table: one already proved bad enough for the
opponent refutes the node at once (enhanced transposition cut-off). Moves are then
ordered fastest-first: the reply that leaves the opponent the fewest moves is tried
first (a cheap proxy for the smallest subtree), after the move the solver's own table
remembers for the position; near the root, where a game asks for it, the evaluation
weighs in, and nearer still, where the proof is long, a shallow alpha-beta search by it
(`_estimate`).

A game of normal play (the side left without a move loses: values +1 and -1 alone)
whose positions fall apart into independent parts may give `live_parts(s, parts)` (the
bit patterns of the squares of its live parts in parts[:n], and in parts[n] those of
all its pieces, dead ones included; returns n) and `part_alone(s, squares, swap)` (the
position of the pieces on `squares` alone, the side to move the same, swap 0, or the
other, swap 1). The position is then the sum of its parts, in the sense of
combinatorial game theory, and the solver classifies each part by solving it alone
twice, each side moving first: a part the side to move wins either way is positive,
one it loses either way negative, one the side moving first wins fuzzy, and one the
side moving second wins is zero. A zero part changes the outcome of no sum, so the
node searches, and the table holds, the position less its zero parts and its dead
pieces (moves of which are moves of the whole position). Its value is known at once
when every part is positive or zero (a win if one is positive, else a loss), when one
part is fuzzy and the others positive or zero (a win: the side to move plays the fuzzy
part's winning move and leaves a sum >= 0 with the other side to move), and when every
part is negative or zero (a loss); a win known so is stored with that winning move
(the part's best move alone). A game may also give `part_outcome(s, squares)`: the
class of a part from a table built ahead (bit 0: the side to move wins it moving
first, bit 1: moving second), or -1 where the table does not hold it; such a part is
not solved. This is the outcome class part of decomposition search: the parts' exact
game values (numbers, infinitesimals, switches) and their temperatures are not
computed.

A game may bound a node's value from above before it is searched: where it gives
`margin_ceiling(s, alpha)` (at least the final margin the side to move can reach, and
free to answer more than alpha, without looking, where a bound of alpha or less is out
of reach), a node whose ceiling is alpha or less fails low at once (a stability
cut-off: pieces the opponent can never lose bound the margin).

A game may hand the positions nearest the end to a solver of its own: where its rules
give `ending(s)` (true near the end) and `solve_ending(s, alpha, beta, counter)` (the
same fail-soft value, its nodes added to counter[0]), the solver calls it on every
position `ending` accepts, before the table. A game may also give `mobility(s)`, its
legal moves counted cheaply, for the ordering (see games/base.py).

`solve` is written over a game's kernels (`BINDS`, and the hooks from `layout`) and
specialised per game by `search.specialised`; `search.proving.Solver` drives it for
`search.alphabeta.AlphaBeta`.
Precondition: a two-player zero-sum game.
"""

from __future__ import annotations

import numpy as np

from games.base import ONGOING, Position
from games.kernel import borrowed, inline_template, kernel, prefetch, uncounted_template
from search.base import MAX_PLY
from search.tt import MOVE_SPREAD, below_busy, capacity_for, fresh_memory, next_move, tt_claim, tt_unmark
from search.work import ABORTED, NODES, POLL, SHARED, STOP, accumulator_rows, move_rows, must_stop, new_work

#: Below this many moves a node tries its moves in generation order: ordering would
#: cost more than it saves.
ORDERING_MIN_MOVES = 3
#: Where a game gives SOLVER_EVALUATED_PLIES, the nodes of that many first plies of a
#: solve, where most of its work is decided, order their moves by the evaluation too:
#: by the opponent's mobility, each move of it weighing MOBILITY_WEIGHT centi-units,
#: plus the evaluation of the position for the opponent (lowest first).
MOBILITY_WEIGHT = 100
#: Where a game also gives SOLVER_SEARCHED_PLIES, the nodes of that many first plies
#: weigh each move by the evaluation's alpha-beta value of its position ORDERING_DEPTH
#: plies deep (`_estimate`) in place of the evaluation itself.
ORDERING_DEPTH = 4
#: ... but only at nodes whose proof the game's solve-time model (`solve_seconds`)
#: expects to take at least this long: nearer the end the shallow searches cost more
#: than they save (measured where a game sets SOLVER_SEARCHED_PLIES). The interpreted
#: core, where a shallow search costs a hundred times more, proved a position of 14
#: empty squares in 1.5 s with this bound against over 30 s without it.
SEARCHED_MIN_SECONDS = 0.1
#: Likewise the evaluation orders the moves only at nodes whose modelled proof takes at
#: least this long, where the game gives a model (measured where a game sets
#: SOLVER_EVALUATED_PLIES).
EVALUATED_MIN_SECONDS = 1e-5
#: A finished position's value in `_estimate`: its margin in the evaluation's
#: hundredths.
MARGIN_UNIT = 100
#: The values of a game of normal play (see `live_parts`).
WIN = np.int64(1)
LOSS = np.int64(-1)
#: Above every margin a game can produce.
WINDOW_LIMIT = 1 << 20
#: Bytes of one solver slot: key, bounds and move.
SOLVER_SLOT_BYTES = 32
#: The fewest slots a solver table has.
MIN_SOLVER_SLOTS = 1 << 10
#: The columns of a solver slot: the check word (the key's bits, as an int64, xor the
#: other three words: see `_slot`), the bounds and the move word.
S_CHECK, S_LOWER, S_UPPER, S_MOVE = 0, 1, 2, 3
#: S_MOVE of an empty slot; a full one holds its best move + 1 in its low MOVE_BITS,
#: and above them the ply from the root at which it was stored. A table of zeros is
#: empty, so a new one costs no time: its pages are mapped in the background.
EMPTY = 0
MOVE_BITS = 24
MOVE_FIELD = (1 << MOVE_BITS) - 1
#: The solver table holds keys as int64 bit patterns.
_KEY_BITS = (1 << 64) - 1
#: With other threads solving the same tree, the nodes fewer plies than this from the
#: root solve last the moves another thread is solving (`search.tt.tt_busy`); deeper,
#: the marks would cost more than the sharing saves.
SHARED_PLIES = 6
#: A move's mark is its parent's key xor the move times `search.tt.MOVE_SPREAD` (as
#: the transposition table's: `move_mark`), here an int64.
_MOVE_SPREAD = np.int64(int(MOVE_SPREAD) - (1 << 64))

#: The game's kernels these templates call, bound per game.
BINDS = ("legal_moves", "play", "key", "result", "margin", "ACCUMULATED", "accumulate", "accumulate_play", "evaluate_at")
legal_moves = play = key = result = margin = None
ACCUMULATED = accumulate = accumulate_play = evaluate_at = None
ending = solve_ending = mobility = live_parts = part_alone = part_outcome = margin_ceiling = solve_seconds = None
HAS_MOBILITY = HAS_PARTS = HAS_PART_OUTCOMES = HAS_CEILING = False
EVALUATED_PLIES = SEARCHED_PLIES = 0


@kernel(inline=True)
def never_ending(s):
    """The `ending` of a game without a solver of its own."""
    return False


@kernel
def no_solve_ending(s, alpha, beta, counter):
    """The `solve_ending` of a game without a solver of its own (never called)."""
    return 0


@kernel(inline=True)
def no_solve_seconds(s):
    """The `solve_seconds` of a game without a solve-time model: every proof counts as
    long (the plies alone decide the ordering)."""
    return np.inf


@kernel(inline=True)
def no_mobility(s):
    """The `mobility` of a game without one of its own (never called: HAS_MOBILITY)."""
    return 0


@kernel(inline=True)
def no_margin_ceiling(s, alpha):
    """The `margin_ceiling` of a game without one (never called: HAS_CEILING)."""
    return WINDOW_LIMIT


@kernel(inline=True)
def no_live_parts(s, parts):
    """The `live_parts` of a game without parts (never called: HAS_PARTS)."""
    return 0


@kernel(inline=True)
def no_part_alone(s, squares, swap):
    """The `part_alone` of a game without parts (never called: HAS_PARTS)."""
    return s


@kernel(inline=True)
def no_part_outcome(s, squares):
    """The `part_outcome` of a game without a table of parts (never called:
    HAS_PART_OUTCOMES)."""
    return np.int64(-1)


def layout(kernels) -> dict[str, object]:
    """The game's optional solver hooks, or their stand-ins: no ending solver of its own
    (every position left to `solve`); without `margin_ceiling`, no node fails low
    before its search; without `mobility`, the legal moves are counted;
    without SOLVER_EVALUATED_PLIES, no ordering by the evaluation (and without
    SOLVER_SEARCHED_PLIES, none by its shallow searches; without `solve_seconds`, the
    plies alone decide both); without `live_parts` and
    `part_alone`, positions are searched whole; without `part_outcome`, every part is
    solved."""
    return {"EVALUATED_PLIES": kernels.get("SOLVER_EVALUATED_PLIES", 0),
            "SEARCHED_PLIES": kernels.get("SOLVER_SEARCHED_PLIES", 0),
            "solve_seconds": kernels.get("solve_seconds", no_solve_seconds),
            "ending": kernels.get("ending", never_ending),
            "solve_ending": kernels.get("solve_ending", no_solve_ending),
            "HAS_CEILING": "margin_ceiling" in kernels,
            "margin_ceiling": kernels.get("margin_ceiling", no_margin_ceiling),
            "HAS_MOBILITY": "mobility" in kernels,
            "mobility": kernels.get("mobility", no_mobility),
            "HAS_PARTS": "live_parts" in kernels,
            "live_parts": kernels.get("live_parts", no_live_parts),
            "part_alone": kernels.get("part_alone", no_part_alone),
            "HAS_PART_OUTCOMES": "part_outcome" in kernels,
            "part_outcome": kernels.get("part_outcome", no_part_outcome)}


@kernel
def promote(row, count, move):
    """Move `move` to the front of row[:count] if it is there, keeping the others' order;
    returns 1 if it was there, else 0."""
    if move < 0:
        return 0
    for i in range(count):
        if row[i] == move:
            for j in range(i, 0, -1):
                row[j] = row[j - 1]
            row[0] = move
            return 1
    return 0


@kernel(inline=True)
def sort_by_score(row, count, first):
    """Sort the moves row[first:count] by their scores in row[count:2 * count], highest
    first, stably (ties keep their order)."""
    for k in range(first + 1, count):
        move = row[k]
        score = row[count + k]
        j = k
        while j > first and row[count + j - 1] < score:
            row[j] = row[j - 1]
            row[count + j] = row[count + j - 1]
            j -= 1
        row[j] = move
        row[count + j] = score


@inline_template
def _accumulated(s, acc, ply):
    """Write `s`'s accumulator into acc[ply] where the evaluation keeps one and `s`'s
    children may be evaluated: `_solve` reads it fewer than EVALUATED_PLIES plies from
    the root."""
    if ACCUMULATED and ply < EVALUATED_PLIES:
        accumulate(s, acc, ply)


@uncounted_template
def _solve(s, alpha, beta, ply, table, work, moves, acc):
    if ending(s):
        before = work[NODES]
        value = solve_ending(s, alpha, beta, work[NODES:NODES + 1])
        # Poll when the count has passed a multiple of POLL + 1.
        if (before ^ work[NODES]) > POLL and must_stop(work, work[NODES]):
            work[ABORTED] = 1
            return 0
        return value
    nodes = work[NODES] + 1
    work[NODES] = nodes
    if (nodes & POLL) == 0 and must_stop(work, nodes):
        work[ABORTED] = 1
        return 0
    if result(s) != ONGOING:
        return margin(s)
    if HAS_PARTS and ply + 1 < MAX_PLY:
        verdict, winning, s = _simplified(s, ply, table, work, moves, acc)
        if work[ABORTED] != 0:
            return 0
        _accumulated(s, acc, ply)
        if verdict != 0:
            if winning >= 0:
                position = np.int64(key(s))
                _store(table, _bucket(table, position), position, verdict, verdict, winning, ply)
            return verdict
    position = np.int64(key(s))
    bucket = _bucket(table, position)
    index, lower, upper, word = _find(table, bucket, position)
    known = index >= 0
    remembered = -1
    if not known:
        lower = -WINDOW_LIMIT
        upper = WINDOW_LIMIT
    else:
        remembered = (word & MOVE_FIELD) - 1
        if lower >= beta:
            return lower
        if upper <= alpha:
            return upper
        if lower == upper:
            return lower
        alpha = max(alpha, lower)
        beta = min(beta, upper)
    if HAS_CEILING:
        ceiling = margin_ceiling(s, alpha)
        if ceiling <= alpha:
            return ceiling
    row = moves[ply]
    count = legal_moves(s, row)
    if count >= ORDERING_MIN_MOVES:
        # The children's keys wait in the upper half of the next row, whose lower half
        # counts their moves where the game gives no `mobility`.
        scratch = moves[ply + 1]
        keys = len(scratch) // 2
        modelled = solve_seconds(s) if ply < EVALUATED_PLIES else 0.0
        searched = ply < SEARCHED_PLIES and modelled >= SEARCHED_MIN_SECONDS
        evaluated = ply < EVALUATED_PLIES and modelled >= EVALUATED_MIN_SECONDS
        for i in range(count):
            child = play(s, row[i])
            child_key = np.int64(key(child))
            scratch[keys + i] = child_key
            # Its slot is fetched while the others' scores are computed: the probes
            # below then find it in the cache (they waited on memory one by one).
            prefetch(table, _bucket(table, child_key))
            row[count + i] = -(mobility(child) if HAS_MOBILITY else legal_moves(child, scratch))
            if searched:
                if ACCUMULATED:
                    accumulate_play(s, child, row[i], acc, ply, ply + 2)
                row[count + i] = MOBILITY_WEIGHT * row[count + i] - _estimate(
                    child, np.int64(ORDERING_DEPTH), np.int64(-WINDOW_LIMIT), np.int64(WINDOW_LIMIT), ply + 2, moves,
                    acc)
            elif evaluated:
                if ACCUMULATED:
                    accumulate_play(s, child, row[i], acc, ply, ply + 1)
                row[count + i] = MOBILITY_WEIGHT * row[count + i] - evaluate_at(child, ply + 1, acc)
        for i in range(count):
            # Enhanced transposition cut-off: a move whose position the table already
            # proves bad enough for the opponent refutes this one at once.
            child_key = scratch[keys + i]
            slot, _, child_upper, _ = _find(table, _bucket(table, child_key), child_key)
            if slot >= 0 and -child_upper >= beta:
                best = -child_upper
                _store(table, bucket, position, best, upper if known else WINDOW_LIMIT, row[i], ply)
                return best
        # Fastest first: the opponent's lowest mobility first (near the root weighed with
        # the evaluation), ties in the generator's order.
        sort_by_score(row, count, 0)
    promote(row, count, remembered)
    original_alpha = alpha
    best = -WINDOW_LIMIT
    best_move = row[0]
    # With other threads on the tree (work[SHARED]), a node fewer than SHARED_PLIES
    # from the root solves a move another thread is solving after its other moves
    # (`tt_busy`); row[count:count + deferred] keeps such moves (the scores are spent).
    sharing = work[SHARED] != 0 and ply < SHARED_PLIES
    deferred = 0
    taken = 0
    i = 0
    while True:
        more, move, i, taken = next_move(row, 0, count, count, i, taken, deferred)
        if not more:
            break
        mark = position ^ (np.int64(move + 1) * _MOVE_SPREAD) if sharing else np.int64(0)
        if sharing and not tt_claim(table, mark, taken == 0 and i > 1):
            row[count + deferred] = move
            deferred += 1
            continue
        child = play(s, move)
        if ACCUMULATED and ply + 1 < EVALUATED_PLIES:
            accumulate_play(s, child, move, acc, ply, ply + 1)
        if i == 1:
            value = -_solve(child, -beta, -alpha, ply + 1, table, work, moves, acc)
        else:
            value = -_solve(child, -alpha - 1, -alpha, ply + 1, table, work, moves, acc)
            if work[ABORTED] == 0 and alpha < value < beta:
                value = -_solve(child, -beta, -value, ply + 1, table, work, moves, acc)
        if sharing:
            tt_unmark(table, mark)
        if work[ABORTED] != 0:
            return 0
        if value > best:
            best = value
            best_move = move
            if value > alpha:
                alpha = value
                if value >= beta:
                    break
    if not known:
        lower = -WINDOW_LIMIT
        upper = WINDOW_LIMIT
    if best >= beta:
        lower = max(lower, best)
    elif best <= original_alpha:
        upper = min(upper, best)
    else:
        lower = best
        upper = best
    _store(table, bucket, position, lower, upper, best_move, ply)
    return best


@uncounted_template
def _estimate(s, depth, alpha, beta, ply, moves, acc):
    """The evaluation's negamax value of `s` to `depth` plies (alpha-beta, fail-hard in
    (alpha, beta)); uses moves[ply] and the rows below it, and where the evaluation
    keeps accumulators, `s`'s in acc[ply] and the rows below it for its children's."""
    if result(s) != ONGOING:
        return margin(s) * MARGIN_UNIT
    if depth == 0:
        return np.int64(evaluate_at(s, ply, acc))
    row = moves[ply]
    count = legal_moves(s, row)
    for i in range(count):
        child = play(s, row[i])
        if ACCUMULATED:
            accumulate_play(s, child, row[i], acc, ply, ply + 1)
        value = -_estimate(child, depth - 1, -beta, -alpha, ply + 1, moves, acc)
        if value > alpha:
            alpha = value
            if alpha >= beta:
                break
    return alpha


@inline_template
def _simplified(s, ply, table, work, moves, acc):
    """(verdict, move, position): `s` less its dead pieces and zero parts, and the value
    (WIN or LOSS) where its parts' classes decide it, else 0, with a winning move where
    they give one, else -1 (see the module docstring). Uses moves[ply] and, for the
    parts' solves, the rows below it (of `moves` and `acc`); sets work[ABORTED] when
    stopped. Inlined into `_solve`: compiled as a function of its own, the two calling
    each other crashed."""
    row = moves[ply]
    n = live_parts(s, row)
    if n == 1 and row[0] != row[1]:
        return np.int64(0), np.int64(-1), part_alone(s, row[0], 0)
    if n < 2:
        return np.int64(0), np.int64(-1), s
    # The parts' classes, each part solved alone with either side moving first.
    kept = np.int64(0)
    positive = negative = fuzzy = 0
    winning = np.int64(-1)  # the fuzzy part's winning move, else a positive one's
    unsolved = np.int64(0)  # the part of that move if the table of parts gave its class
    for i in range(n):
        outcome = part_outcome(s, row[i]) if HAS_PART_OUTCOMES else np.int64(-1)
        first_move = np.int64(-1)
        if outcome >= 0:
            first = WIN if outcome & 1 else LOSS
            second = WIN if outcome & 2 else LOSS
        else:
            alone = part_alone(s, row[i], 0)
            _accumulated(alone, acc, ply + 1)
            first = _solve(alone, LOSS, WIN, ply + 1, table, work, moves, acc)
            if work[ABORTED] != 0:
                return np.int64(0), np.int64(-1), s
            if first > 0:
                first_move = _stored_move(table, alone)
            alone = part_alone(s, row[i], 1)
            _accumulated(alone, acc, ply + 1)
            second = -_solve(alone, LOSS, WIN, ply + 1, table, work, moves, acc)
            if work[ABORTED] != 0:
                return np.int64(0), np.int64(-1), s
        if first > 0 and (second < 0 or fuzzy == 0):
            # the fuzzy part's move, else (while none is fuzzy) a positive part's
            winning = first_move
            unsolved = row[i] if outcome >= 0 else np.int64(0)
        if first > 0 and second > 0:
            positive += 1
        elif first > 0:
            fuzzy += 1
        elif second < 0:
            negative += 1
        else:
            continue  # a zero part: left out
        kept |= row[i]
    whole = s
    if kept != row[n]:
        s = part_alone(s, kept, 0)
    if negative == 0 and (fuzzy == 0 < positive or fuzzy == 1):
        # Every part positive or zero, one at least positive, or one fuzzy and the
        # others positive or zero: the side to move wins with that part's winning move,
        # leaving a sum >= 0 with the other side to move. A part whose class came from
        # the table of parts is solved (small: quickly) for that move.
        if unsolved != 0:
            alone = part_alone(whole, unsolved, 0)
            _accumulated(alone, acc, ply + 1)
            _solve(alone, LOSS, WIN, ply + 1, table, work, moves, acc)
            if work[ABORTED] != 0:
                return np.int64(0), np.int64(-1), s
            winning = _stored_move(table, alone)
        return WIN, winning, s
    if fuzzy == 0 and positive == 0:
        # Every part negative or zero: the sum is <= 0, lost by the side moving first.
        return LOSS, np.int64(-1), s
    return np.int64(0), np.int64(-1), s


@uncounted_template
def simplified(s, table, work, moves, acc):
    """`_simplified` at the root of a solve, with the simpler position's key in place of
    the position (see `Solver.best_line`)."""
    work[ABORTED] = 0
    verdict, winning, simpler = _simplified(s, np.int64(0), borrowed(table), borrowed(work), borrowed(moves),
                                            borrowed(acc))
    return verdict, winning, key(simpler)


@inline_template
def _stored_move(table, s):
    """The best move the table holds for position `s`, or -1."""
    position = np.int64(key(s))
    index, _, _, word = _find(table, _bucket(table, position), position)
    if index < 0:
        return np.int64(-1)
    return (word & MOVE_FIELD) - 1


@kernel(inline=True)
def _slot(table, index, position):
    """(lower, upper, move word) of slot `index` if it holds `position`, else move word
    EMPTY. Each word is read once: the check word is the key xor the other three, so a
    slot whose words two threads stored at once matches no position."""
    lower = table[index, S_LOWER]
    upper = table[index, S_UPPER]
    word = table[index, S_MOVE]
    if word == EMPTY or table[index, S_CHECK] ^ lower ^ upper ^ word != position:
        word = np.int64(EMPTY)
    return lower, upper, word


@kernel(inline=True)
def _find(table, bucket, position):
    """(slot, lower, upper, move word) of the bucket's slot (slots `bucket` and
    `bucket` + 1, one cache line) that holds `position`, or slot -1."""
    lower, upper, word = _slot(table, bucket, position)
    if word != EMPTY:
        return bucket, lower, upper, word
    lower, upper, word = _slot(table, bucket + 1, position)
    if word != EMPTY:
        return bucket + 1, lower, upper, word
    return np.int64(-1), lower, upper, word


@kernel(inline=True)
def _bucket(table, position):
    """The first of the two slots of `position`'s bucket: its low bits, moved below the
    busy area (`search.tt.tt_busy`) where they fall in it."""
    return below_busy(table, position & np.int64(len(table) - 2))


@kernel(inline=True)
def _store(table, bucket, position, lower, upper, move, ply):
    """Store `position`'s bounds and best move, found at `ply` from the root, in its
    bucket: over its own slot if it has one; else in the first slot if that holds a
    position found no nearer the root (its entry moving to the second slot), else in
    the second. The first slot keeps what cost most to find, the second what came last:
    always replacing lost the entries near the root, which every null-window test of a
    root searches again."""
    index = _find(table, bucket, position)[0]
    if index < 0:
        index = bucket + 1
        first = table[bucket, S_MOVE]
        if first == EMPTY or (first >> MOVE_BITS) >= ply:
            index = bucket
            for column in range(4):
                table[bucket + 1, column] = table[bucket, column]
    word = (move + 1) | (ply << MOVE_BITS)
    table[index, S_CHECK] = position ^ lower ^ upper ^ word
    table[index, S_LOWER] = lower
    table[index, S_UPPER] = upper
    table[index, S_MOVE] = word


@uncounted_template
def solve(s, alpha, beta, table, work, moves, acc):
    """The exact value (final margin, side to move's view) of `s` if it lies in
    (alpha, beta), else a bound on the side it failed. Sets work[ABORTED] when
    stopped. The table (`new_solver_table()`) carries bounds between calls; `moves` is
    `move_rows`, `acc` `accumulator_rows` of the bound ACCUMULATOR."""
    work[ABORTED] = 0
    if ACCUMULATED:
        accumulate(s, acc, np.int64(0))
    return _solve(s, np.int64(alpha), np.int64(beta), np.int64(0), borrowed(table), borrowed(work),
                  borrowed(moves), borrowed(acc))


TEMPLATES = (_accumulated, _solve, _estimate, _simplified, _stored_move, simplified, solve)


def warm(kernels, position: Position) -> None:
    """Call `solve` and `simplified` once (stopped at their first node), so that numba
    loads them from its cache (or compiles them) before a search needs them."""
    work = new_work(kernels.HISTORY_MASK + 1)
    work[STOP] = 1
    moves = move_rows(kernels.MAX_MOVES)
    table = new_solver_table(0)
    accumulators = accumulator_rows(kernels.ACCUMULATOR)
    kernels.solve(position.s, -1, 1, table, work, moves, accumulators)
    kernels.simplified(position.s, table, work, moves, accumulators)


def new_solver_table(memory_bytes: int) -> np.ndarray:
    """A solver table of at most `memory_bytes` (the most slots, a power of two, that
    fit; at least MIN_SOLVER_SLOTS): (slots, 4) int64, columns S_CHECK, S_LOWER, S_UPPER,
    S_MOVE; all slots EMPTY (zeros)."""
    slots = max(MIN_SOLVER_SLOTS, capacity_for(memory_bytes, SOLVER_SLOT_BYTES))
    return np.frombuffer(fresh_memory(slots * SOLVER_SLOT_BYTES), dtype=np.int64).reshape(slots, 4)
