"""Random and malformed command lines thrown at one live engine: it must answer
`isready` after every batch and still play legal moves."""

from __future__ import annotations

import queue
import subprocess
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import find_game
from tests.conftest import engine_command, move_tokens

CODES = {"unknown-command", "syntax", "bad-value", "no-game", "bad-position", "illegal-move",
         "busy", "unsupported", "io", "internal", "stopped"}
REPLY_WORDS = {"readyok", "bestmove", "error", "info", "id", "option", "uciok", "games", "moves",
               "board", "board-text", "result", "perft", "eval"}


class PipeEngine:
    """A live engine on pipes, read by a thread, for synchronous hypothesis tests."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(engine_command(), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines: queue.Queue[str] = queue.Queue()
        self.count = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.process.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def until(self, word: str, timeout: float = 20) -> list[str]:
        lines = []
        while True:
            line = self.lines.get(timeout=timeout)
            lines.append(line)
            if line.split(" ", 1)[0] == word:
                return lines

    def barrier(self) -> list[str]:
        """Stop any search, then every line up to a reply nothing else can produce.

        `readyok` cannot serve: the random batches send `isready` themselves.
        """
        self.count += 1
        marker = f"barrier{self.count}"
        self.send(f"stop\nisready\n{marker}\n".encode())
        lines = []
        while True:
            line = self.lines.get(timeout=20)
            if line.startswith(f"error unknown-command {marker} "):
                return lines
            lines.append(line)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture(scope="module")
def engine():
    live = PipeEngine()
    yield live
    live.close()


CLOBBER = find_game("clobber")
START = CLOBBER.initial_state({})
MOVE_TOKENS = sorted(CLOBBER.format_move(START, move) for move in START.legal_moves())

junk = st.text(alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)),
               max_size=12)
number = st.one_of(st.integers(-5, 400).map(str), junk)
command_lines = st.one_of(
    st.sampled_from(["uci", "isready", "games", "newgame", "ucinewgame", "moves", "d", "eval", "stop",
                     "ponderhit", "hash clear", "go infinite", "go ponder", "go", "setgame clobber",
                     "position startpos", "setgame othello", "hash load /nonexistent"]),
    st.builds(lambda m: f"position startpos moves {' '.join(m)}", st.lists(st.sampled_from(MOVE_TOKENS) | junk, max_size=4)),
    st.builds(lambda rows, side: f"position board {rows} {side}", junk, junk),
    st.builds(lambda key, value: f"go {key} {value}",
              st.sampled_from(["movetime", "depth", "nodes", "wtime", "p1time", "movestogo", "depth x"]), number),
    st.builds(lambda name, value: f"setoption name {name} value {value}",
              st.sampled_from(["Hash", "Ponder", "MoveOverhead", "HashFile ", "Nope"]), number),
    st.builds(lambda depth: f"perft {depth}", st.sampled_from(["0", "1", "2", "-1", "x", ""])),
    st.builds(lambda name, rest: f"{name} {rest}", st.sampled_from(["setgame", "hash", "go", "position", "isready"]), junk),
    junk,
)
raw_lines = st.one_of(
    command_lines.map(lambda line: line.encode() + b"\n"),
    st.binary(max_size=40).filter(lambda data: b"quit" not in data).map(lambda data: data + b"\n"),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(raw_lines, min_size=1, max_size=12))
def test_random_lines_never_break_the_engine(engine: PipeEngine, batch: list[bytes]) -> None:
    for data in batch:
        if data.split(b" ")[0].strip().lower() == b"quit":
            continue
        engine.send(data.replace(b"quit", b"q"))
    replies = engine.barrier()
    assert "readyok" in replies
    for line in replies:
        word = line.split(" ", 1)[0]
        assert word in REPLY_WORDS, line
        if word == "error":
            assert line.split(" ")[1] in CODES, line
            assert line.split(" ")[1] != "internal", line


def test_after_the_storm_it_still_plays_legal_moves(engine: PipeEngine) -> None:
    engine.barrier()
    engine.send(b"setoption name MoveOverhead value 10\nsetoption name HashFile value <empty>\n"
                b"setgame clobber\nposition startpos moves a2a3\n")
    assert not [line for line in engine.barrier() if line.startswith("error")]
    engine.send(b"go movetime 100\n")
    bestmove = engine.until("bestmove")[-1].split()
    state = START.play(CLOBBER.parse_move(START, "a2a3"))
    assert bestmove[1] in move_tokens(state)
