"""GRhino (Debian's `grhino`, its GTP front end `gtp-rhino`) as a CodinGame Othello bot.

    python scripts/sparring/grhino.py [--flags "-l 3 -m 5 -w 14 -e 12"] [--program PATH]

It reads the referee's Othello turns on stdin and prints one move a line. It keeps one
`gtp-rhino` child for the whole game: it asks for the EXPERT line with its first answer,
so every turn says the opponent's moves since the last one; it sends those moves with
`play` (a forced pass is not sent: GRhino skips a player without a move by itself),
checks GRhino's board (`showboard`) against the referee's, and answers with `genmove`.
GTP and CodinGame name the squares alike (file a-h, row 1 the top row), black moves
first in both, so a move is the same text lowercased.

`--flags` goes to gtp-rhino as it is: `-l N` the level (1-5), `-m N`/`-w N`/`-e N` the
mid-game, winning-move and exact end-game search depths, `-b N` the opening-book
variation, `-r N` randomness. The default, `-l 3 -m 5 -w 14 -e 12`, answers within
CodinGame's 150 ms; `-l 3` alone is the full level 3.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
import time

from common import OthelloHistory, WrapperError, log, main_guard, play

DEFAULT_FLAGS = "-l 3 -m 5 -w 14 -e 12"
PROGRAM = "gtp-rhino"
COLOURS = ("black", "white")


class Gtp:
    """A GTP child: one command, one `=`/`?` answer ended by a blank line."""

    def __init__(self, command: list[str]):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def ask(self, command: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise WrapperError(f"gtp-rhino ended its output after {command!r}")
            line = line.rstrip("\r\n")
            if not line and lines:
                break
            if line or lines:
                lines.append(line)
        answer = "\n".join(lines)
        if not answer.startswith("="):
            raise WrapperError(f"gtp-rhino refused {command!r}: {answer}")
        return answer[1:].strip()

    def close(self) -> None:
        try:
            self.ask("quit")
        except (WrapperError, OSError):
            pass
        self.process.kill()


def gtp_board(text: str) -> list[str]:
    """The rows of a `showboard` answer as the referee's board lines (`0` black)."""
    rows = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 9 and parts[0].isdigit():
            rows.append("".join({"X": "0", "O": "1"}.get(cell, ".") for cell in parts[1:]))
    return rows


class GRhino:
    def __init__(self, command: list[str]):
        self.gtp = Gtp(command)
        self.gtp.ask("boardsize 8")
        self.gtp.ask("clear_board")
        self.history = OthelloHistory()

    def choose(self, turn, state, legal) -> str:
        for player, token in self.history.catch_up(turn):
            if token != OthelloHistory.PASS:
                self.gtp.ask(f"play {COLOURS[player]} {token}")
        rows = gtp_board(self.gtp.ask("showboard"))
        if rows != turn.board_text.split()[0].split("/"):
            raise WrapperError(f"GRhino's board {rows} is not the referee's {turn.board_text}")
        started = time.perf_counter()
        answer = self.gtp.ask(f"genmove {COLOURS[turn.player]}").lower()
        log(f"genmove {answer}: {(time.perf_counter() - started) * 1000:.1f} ms")
        if answer not in legal:
            raise WrapperError(f"GRhino's move {answer!r} is not in the legal list {list(legal)}")
        self.history.play_own(answer)
        return answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flags", default=DEFAULT_FLAGS,
                        help=f"gtp-rhino's options (default {DEFAULT_FLAGS!r})")
    parser.add_argument("--program", default=None, help="the gtp-rhino program (default: on PATH or /usr/games)")
    args = parser.parse_args(argv)
    program = args.program or shutil.which(PROGRAM) or shutil.which(PROGRAM, path="/usr/games")
    if not program:
        log("gtp-rhino not found: run scripts/sparring/install (it installs Debian's grhino)")
        return 2
    bot = GRhino([program, *shlex.split(args.flags)])
    log(f"gtp-rhino {args.flags}")
    try:
        return 0 if play("othello", bot.choose, expert=True) >= 0 else 1
    finally:
        bot.gtp.close()


if __name__ == "__main__":
    sys.exit(main_guard(main))
