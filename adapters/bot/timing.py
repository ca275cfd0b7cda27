"""How the adapter spends a CodinGame turn's time.

CodinGame measures a turn from sending the input to reading the answer line. The adapter
counts from the arrival of the turn's first line, and keeps two margins inside the limit:

- the engine's `movetime` ends MARGIN before the limit: it covers the engine reading the
  `go` line late, its `bestmove` coming up to 4 ms before that deadline at worst (the
  daemon's watchdog), both pipes, the adapter waking up and writing, and the referee
  waking up to read, on a loaded machine;
- the adapter's own deadline is GUARD before the limit: if no usable `bestmove` has come
  by then it prints a fallback move at once. Its own move, one ply deep, takes up to
  20 ms to work out, so it works on it from halfway through the engine's movetime to
  its end if the engine is not up yet or its search has reported no move by then.

Measured on a loaded two-core machine (docs/codingame.md has the figures), the adapter
itself adds well under a millisecond per turn at the median and a few at worst; the
margins are wide for the scheduler's sake: a process that waits for the CPU for 10-20 ms
is what threatens a 75-150 ms turn.

First turns also pay for starting the engine process (a few hundred ms when the machine
is busy), so they keep a wider margin.
"""

from __future__ import annotations

import attrs

from adapters.codingame.common import TurnFormat

#: First turn: the engine's movetime ends this long before the limit (ms) ...
FIRST_TURN_MARGIN_MS = 110
#: ... and the adapter prints a fallback this long before it.
FIRST_TURN_GUARD_MS = 50
#: While the engine is starting, a turn waits for it as long as a search of this many
#: ms would still fit: first turns, later turns.
FIRST_TURN_LEAST_SEARCH_MS = 30
LEAST_SEARCH_MS = 30


def turn_margin_ms(limit_ms: int) -> int:
    """The engine's movetime ends this long before a later turn's limit: 40 ms of 150,
    31 of 100, 27 of 75."""
    return 15 + limit_ms // 6


def turn_guard_ms(limit_ms: int) -> int:
    """The adapter prints a fallback this long before a later turn's limit: 18 ms of 150,
    14 of 100, 13 of 75."""
    return 8 + limit_ms // 15


@attrs.frozen
class Budget:
    """The deadlines of one turn, as time.monotonic() values.

    Attributes:
        started: when the turn's first line arrived.
        limit_ms: CodinGame's limit for this turn.
        engine_deadline: the end of the engine's movetime.
        hard_deadline: when a fallback move is printed if the engine has not answered.
        engine_wait: until when a turn waits for an engine that is starting: as long as a
            search of FIRST_TURN_LEAST_SEARCH_MS (first turns) or LEAST_SEARCH_MS would
            still fit.
        own_move_at: halfway from `started` to `engine_deadline`: a search that has
            reported no move by then may not have one in time, and the adapter works out
            its own until `engine_deadline`.
        ponder_movetime: the movetime of a ponder search for the next turn (counted from
            `ponderhit`), in ms.
    """

    started: float
    limit_ms: int
    engine_deadline: float
    hard_deadline: float
    engine_wait: float
    own_move_at: float
    ponder_movetime: int


def budget(fmt: TurnFormat, first_turn: bool, started: float, time_scale: float = 1.0) -> Budget:
    """The deadlines of a turn of game `fmt` whose first line arrived at `started`, its
    limit CodinGame's times `time_scale` (an arena's `--time-scale`)."""
    turn_ms = round(fmt.TURN_MS * time_scale)
    if first_turn:
        limit = round(fmt.FIRST_TURN_MS * time_scale)
        margin, guard = FIRST_TURN_MARGIN_MS, FIRST_TURN_GUARD_MS
        least = FIRST_TURN_LEAST_SEARCH_MS
    else:
        limit = turn_ms
        margin, guard = turn_margin_ms(limit), turn_guard_ms(limit)
        least = LEAST_SEARCH_MS
    return Budget(
        started=started,
        limit_ms=limit,
        engine_deadline=started + (limit - margin) / 1000,
        hard_deadline=started + (limit - guard) / 1000,
        engine_wait=started + (limit - margin - least) / 1000,
        own_move_at=started + (limit - margin) / 2000,
        ponder_movetime=turn_ms - turn_margin_ms(turn_ms),
    )
