"""A stand-in engine for the adapter's tests, with behaviours a real engine never shows.

    python -m tests.adapters.fake_engine MODE [LOG]

Modes:
- predictable: answers `uci` and `isready`; `go` with the first legal move (string order) and, as
  the ponder move, the first reply to it; `go ponder` waits for `ponderhit` (then answers
  the same way) or `stop`. Every line received is appended to LOG.
- silent: reads everything, answers nothing.
- illegal: like predictable, but every bestmove is `a1a1`.
- crash: like predictable for the first search, then exits.
"""

from __future__ import annotations

import sys

from games import find_game


def main() -> int:
    mode = sys.argv[1]
    log = open(sys.argv[2], "a") if len(sys.argv) > 2 else None
    game = None
    state = None
    pending: str | None = None
    searches = 0
    for raw in sys.stdin:
        line = raw.strip()
        if log is not None:
            log.write(line + "\n")
            log.flush()
        if mode == "silent" or not line:
            continue
        tokens = line.split()
        if tokens[0] == "isready":
            reply("readyok")
        elif tokens[0] == "uci":
            reply("uciok")
        elif tokens[0] == "setgame":
            game = find_game(tokens[1])
            state = game.initial_state({})
        elif tokens[0] == "position" and game is not None:
            moves_at = tokens.index("moves") if "moves" in tokens else len(tokens)
            state = game.parse_board(tokens[2:moves_at])
            for token in tokens[moves_at + 1:]:
                state = state.play(game.parse_move(state, token))
        elif tokens[0] == "go":
            searches += 1
            if "ponder" in tokens:
                pending = answer(game, state, mode)
            else:
                reply(answer(game, state, mode))
                if mode == "crash":
                    return 0
        elif tokens[0] in ("ponderhit", "stop") and pending is not None:
            reply(pending)
            pending = None
        elif tokens[0] == "quit":
            return 0
    return 0


def answer(game, state, mode: str) -> str:
    if mode == "illegal":
        return "bestmove a1a1"
    tokens = sorted(game.format_move(state, move) for move in state.legal_moves())
    move = tokens[0]
    after = state.play(game.parse_move(state, move))
    replies = sorted(game.format_move(after, reply) for reply in after.legal_moves())
    return f"bestmove {move}" + (f" ponder {replies[0]}" if replies else "")


def reply(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
