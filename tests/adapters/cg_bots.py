"""Misbehaving and special CodinGame bots for the arena's tests.

    python -m tests.adapters.cg_bots MODE GAME [TIME_SCALE]

Modes:
- garbage: answers every turn with a line that is no move.
- silent: reads its input and never answers.
- exit: ends at once, without a word.
- keyword: answers `random` every turn (the referee then picks a move).
- comment: the first legal move with a comment, in the game's comment syntax.
- expert: (Othello) `EXPERT` with its first move, then reads the EXPERT line every turn
  and checks it; any mismatch is written to stderr as `expert mismatch`.
- late: answers correctly but only after twice the turn's limit (times TIME_SCALE, the
  arena's factor on the limits, 1 by default), from its third turn.
"""

from __future__ import annotations

import sys
import time

from adapters.codingame import turn_format
from adapters.codingame.common import read_turn
from games.kernel import interpret_kernels


def main() -> int:
    interpret_kernels()  # the bots read the rules interpreted: without numba they start sooner
    mode, game = sys.argv[1], sys.argv[2]
    time_scale = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    if mode == "exit":
        return 0
    if mode == "silent":
        sys.stdin.read()
        return 0
    fmt = turn_format(game)
    player = None
    turns = 0
    expert = False
    while True:
        try:
            lines = read_turn(sys.stdin.readline, fmt.framer(player is None, expert))
        except EOFError:
            return 0
        turn = fmt.parse_turn(lines, player, turns, expert)
        player = turn.player
        legal = fmt.legal_tokens(turn)
        if expert and not turn.expert_actions:
            print("expert mismatch: no actions", file=sys.stderr)
        if mode == "garbage":
            answer = "no-such-move"
        elif mode == "keyword":
            answer = "random"
        elif mode == "comment":
            answer = legal[0] + (" MSG hello" if game == "othello" else " hello there")
        elif mode == "expert":
            answer = ("EXPERT " if not expert else "") + legal[0]
            expert = True
        elif mode == "late":
            if turns >= 2:
                time.sleep(2 * fmt.TURN_MS * time_scale / 1000)
            answer = legal[0]
        else:
            raise SystemExit(f"unknown mode {mode}")
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()
        turns += 1


if __name__ == "__main__":
    sys.exit(main())
