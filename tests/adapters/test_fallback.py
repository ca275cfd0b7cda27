"""`engine-cg`'s own move when the engine fails it: the engine's search run interpreted in
the adapter (`adapters.bot.own`), never simply the referee's first legal move.

The position is a Clobber ending where, of white's three captures in the referee's
order (a1a2, a1b1, c1b1), only the second wins at once (black is left without a
capture) and the first is the worst by the evaluation; the adapter is given it as a
first turn and again as a later one, at three times CodinGame's limits (3000 ms and
450 ms): the choice is under test here, the limits in test_turns and test_engine_turns,
and on a busy machine the adapter's own start can take a whole first turn of 1000 ms.
Each stand-in engine fails in its own way: one never comes up, one comes up and never
answers a search, one answers a move that is not in the list.
"""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from adapters.codingame import turn_format

FMT = turn_format("clobber")
EMPTY = "." * 8
BOARD = "/".join([EMPTY] * 6 + ["b.......", "wbw....."]) + " w"
#: The one capture after which black has none, and the referee's first move.
WINNING, FIRST = "a1b1", "a1a2"
#: The factor on CodinGame's turn limits.
TIME_SCALE = 3
#: Stand-in engines (POSIX shell): what each does, and what the adapter logs for it.
ENGINES = {
    "never up": ("cat > /dev/null", "fallback: no engine;"),
    "never answers": ('while read -r line; do [ "$line" = uci ] && echo uciok; done',
                      "fallback: no bestmove"),
    "answers a move not in the list": (
        'while read -r line; do case "$line" in uci) echo uciok;; go*) echo "bestmove a1a1";; esac; done',
        "is not in the referee's list"),
}


@pytest.mark.parametrize("engine", ENGINES)
def test_the_fallback_is_the_adapters_own_search(engine: str) -> None:
    script, why = ENGINES[engine]
    state = FMT.GAME.parse_board(BOARD.split())
    turns = [FMT.format_turn(state, state.to_move, first, []) for first in (True, False)]
    legal = FMT.legal_tokens(FMT.parse_turn(turns[0], None, 0))
    assert legal[0] == FIRST and WINNING in legal
    command = [sys.executable, "-m", "adapters.bot.main", "clobber",
               "--engine", shlex.join(["sh", "-c", script]), "--time-scale", str(TIME_SCALE)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as bot:
        answers = []
        for lines in turns:
            bot.stdin.write("\n".join(lines) + "\n")
            bot.stdin.flush()
            answers.append(FMT.parse_output(bot.stdout.readline(), legal))
        bot.stdin.close()
        stderr = bot.stderr.read()
        assert bot.wait(30) == 0, stderr
    assert answers == [WINNING, WINNING], stderr
    fallbacks = [line for line in stderr.splitlines() if "fallback:" in line]
    assert len(fallbacks) == 2, stderr
    # On a busy machine even a stand-in that comes up may not be up within the first turn.
    assert why in fallbacks[-1] and (why in fallbacks[0] or "no engine" in fallbacks[0]), fallbacks
    assert all(line.endswith(f"playing {WINNING} (searched 1 ply deep in the adapter, the result proven)")
               for line in fallbacks), fallbacks
