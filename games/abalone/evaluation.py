"""Abalone evaluation: material first, then the centre, cohesion and pushing threats.

Each term is a difference between black and white (the value is black's; white's is its
negation), in centi-marbles: 100 is one marble pushed off. Weights per unit of a term:

- material, 100: marbles pushed off by black minus marbles pushed off by white. Dominant:
  the other terms of a real position never add up to a marble.
- centre, 6: the hex distance of every marble from the centre cell, summed per side,
  counted against its owner. A marble in the middle cannot be pushed off, and a side
  that holds the middle splits the other side's lines.
- cohesion, 2: adjacent pairs of own marbles (each pair once, along the three axes).
  Lines of two and three push and resist pushes; a scattered side does neither.
- danger, 10: own marbles that an enemy column can push off the board with one move
  now (a 2-against-1 or 3-against-1 with the marble on the rim, or a 3-against-2 with
  the second marble on the rim), counted against their owner.
- pushes, 3: the sumito moves (2v1, 3v1, 3v2) a side has, pushing off or not. Pressure
  on enemy lines makes them give way.

Weights: the scale of the design notes divided by ten (centre 2-3, cohesion 1-2, danger
30, pushes 1.5-3), then self-play matches of 3-ply searches from openings of 4 random
plies, 12 games a match with both colours. Centre 6 scored 0.875 against 3, danger 10
scored 0.875 against 30, dropping the pushes term scored 0.17 and dropping cohesion
0.58 (kept: within the noise). A term that gave the side to move most of a marble for
a pending push-off lost (0.29 at 60, 0.375 at 30 against none) and is gone. The weights
above scored 0.833 against the starting scale, and a 2-ply search with them won 20 of
20 games against a uniformly random player, each by six marbles to none.

The weights are data (`weights.json`, read by `games.weights`), by the number of marbles
pushed off so far; `scripts/tune abalone` fits them to self-play games.

Every term is a popcount of a few shifted and ANDed boards: no loop over cells. The boards
are two words each (`games.abalone.hexboard`).
"""

from __future__ import annotations

from games.abalone.hexboard import (
    ON_HI,
    ON_LO,
    RIM0_HI,
    RIM0_LO,
    RIM1_HI,
    RIM1_LO,
    RIM2_HI,
    RIM2_LO,
    RIM3_HI,
    RIM3_LO,
    RIM4_HI,
    RIM4_LO,
    RIM5_HI,
    RIM5_LO,
    RINGS,
    U0,
    U1,
    U2,
    U10,
    U11,
    U20,
    U22,
    bit_count,
    shl,
    shr,
    split,
)
import numpy as np

from games.abalone.rules import BLACK
from games.kernel import kernel
from games.weights import load_weights

#: The terms, in the order of the weights, each black's minus white's (see above).
FEATURES = ("material", "centre", "cohesion", "danger", "pushes")
#: The weights, by marbles pushed off so far (`weights.json`, see `games.weights`).
WEIGHTS_DATA = load_weights(__file__, FEATURES)
#: WEIGHTS[pushed off, term].
WEIGHTS = WEIGHTS_DATA.table()

#: RING<k>_LO, RING<k>_HI: the cells at hex distance k from the centre.
RING1_LO, RING1_HI = split(RINGS[1])
RING2_LO, RING2_HI = split(RINGS[2])
RING3_LO, RING3_HI = split(RINGS[3])
RING4_LO, RING4_HI = split(RINGS[4])


@kernel(inline=True)
def _attacks_axis(ol, oh, ql, qh, el, eh, u, uu, rpl, rph, rml, rmh):
    """The sumito moves along the axis of positive step u of the side owning (ol, oh)
    against (ql, qh), e the empty cells, rp and rm the cells whose neighbour +u and -u
    is off the board: (pushes, the enemy marbles one of them pushes off, as lo, hi)."""
    pushes = 0
    offl = U0
    offh = U0
    sl, sh = shl(ol, oh, u)
    pl, ph = ol & sl, oh & sh
    if (pl | ph) == U0:
        return pushes, offl, offh
    sl, sh = shl(pl, ph, u)
    tl, th = pl & sl, ph & sh
    # Moving +u: the front marble of a pair or triple is its anchor cell.
    gl, gh = shr(ql, qh, u)
    if (pl & gl) | (ph & gh) != U0:
        edgel, edgeh = ql & rpl, qh & rph
        sl, sh = shr(el, eh, u)
        headl, headh = shr((ql & sl) | edgel, (qh & sh) | edgeh, u)
        pushes += bit_count(pl & headl, ph & headh)
        sl, sh = shl(pl, ph, u)
        offl |= edgel & sl
        offh |= edgeh & sh
        if (tl & gl) | (th & gh) != U0:
            pushes += bit_count(tl & headl, th & headh)
            twol, twoh = ql & headl, qh & headh
            sl, sh = shr(twol, twoh, u)
            pushes += bit_count(tl & sl, th & sh)
            sl, sh = shl(tl, th, u)
            sl, sh = shl(twol & sl, twoh & sh, u)
            offl |= edgel & sl
            offh |= edgeh & sh
    # Moving -u: the front marble is the lower end.
    pl, ph = shr(pl, ph, u)
    gl, gh = shl(ql, qh, u)
    if (pl & gl) | (ph & gh) != U0:
        tl, th = shr(tl, th, uu)
        edgel, edgeh = ql & rml, qh & rmh
        sl, sh = shl(el, eh, u)
        headl, headh = shl((ql & sl) | edgel, (qh & sh) | edgeh, u)
        pushes += bit_count(pl & headl, ph & headh)
        sl, sh = shr(pl, ph, u)
        offl |= edgel & sl
        offh |= edgeh & sh
        if (tl & gl) | (th & gh) != U0:
            pushes += bit_count(tl & headl, th & headh)
            twol, twoh = ql & headl, qh & headh
            sl, sh = shl(twol, twoh, u)
            pushes += bit_count(tl & sl, th & sh)
            sl, sh = shr(tl, th, u)
            sl, sh = shr(twol & sl, twoh & sh, u)
            offl |= edgel & sl
            offh |= edgeh & sh
    return pushes, offl, offh


@kernel(inline=True)
def _attacks(ol, oh, ql, qh, el, eh):
    """(the sumito moves of the side owning (ol, oh), the enemy marbles it can push off
    the board with one of them, as lo, hi)."""
    p0, a0, b0 = _attacks_axis(ol, oh, ql, qh, el, eh, U1, U2, RIM0_LO, RIM0_HI, RIM3_LO, RIM3_HI)
    p1, a1, b1 = _attacks_axis(ol, oh, ql, qh, el, eh, U10, U20,
                               RIM4_LO, RIM4_HI, RIM1_LO, RIM1_HI)
    p2, a2, b2 = _attacks_axis(ol, oh, ql, qh, el, eh, U11, U22,
                               RIM5_LO, RIM5_HI, RIM2_LO, RIM2_HI)
    return p0 + p1 + p2, a0 | a1 | a2, b0 | b1 | b2


@kernel(inline=True)
def _adjacent(bl, bh):
    """Adjacent pairs of a board along the three axes."""
    sl, sh = shl(bl, bh, U1)
    total = bit_count(bl & sl, bh & sh)
    sl, sh = shl(bl, bh, U10)
    total += bit_count(bl & sl, bh & sh)
    sl, sh = shl(bl, bh, U11)
    return total + bit_count(bl & sl, bh & sh)


@kernel(inline=True)
def terms(s):
    """Black's terms (`FEATURES`) of the kernel state `s`."""
    bl, bh, wl, wh, _, _, black_score, white_score, _ = s
    el = ON_LO ^ bl ^ wl
    eh = ON_HI ^ bh ^ wh
    black_pushes, wdl, wdh = _attacks(bl, bh, wl, wh, el, eh)
    white_pushes, bdl, bdh = _attacks(wl, wh, bl, bh, el, eh)
    # Rings 1..4 around the centre, so that the distance sums need no loop.
    centre = (bit_count(wl & RING1_LO, wh & RING1_HI) - bit_count(bl & RING1_LO, bh & RING1_HI)
              + 2 * (bit_count(wl & RING2_LO, wh & RING2_HI) - bit_count(bl & RING2_LO, bh & RING2_HI))
              + 3 * (bit_count(wl & RING3_LO, wh & RING3_HI) - bit_count(bl & RING3_LO, bh & RING3_HI))
              + 4 * (bit_count(wl & RING4_LO, wh & RING4_HI) - bit_count(bl & RING4_LO, bh & RING4_HI)))
    return (np.int64(black_score - white_score), np.int64(centre),
            np.int64(_adjacent(bl, bh) - _adjacent(wl, wh)),
            np.int64(bit_count(wdl, wdh) - bit_count(bdl, bdh)),
            np.int64(black_pushes - white_pushes))


@kernel
def evaluate(s):
    """The value for the side to move: black's value (its terms times the weights of the
    marbles pushed off so far), negated when white is to move; otherwise the side to move
    does not change it."""
    weights = WEIGHTS[s[6] + s[7]]
    t = terms(s)
    value = (weights[0] * t[0] + weights[1] * t[1] + weights[2] * t[2] + weights[3] * t[3]
             + weights[4] * t[4])
    return value if s[4] == BLACK else -value


@kernel
def features(s):
    """The phase (marbles pushed off) and the terms of `evaluate` for the side to move,
    for tuning."""
    t = terms(s)
    if s[4] == BLACK:
        return s[6] + s[7], t
    return s[6] + s[7], (-t[0], -t[1], -t[2], -t[3], -t[4])
