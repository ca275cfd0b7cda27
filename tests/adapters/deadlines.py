"""Turns fed to `engine-cg --stats`, and its answers held to CodinGame's limits in a way
that a loaded machine does not break.

CodinGame's limit is the wall time from the referee writing a turn to reading the
answer. On a busy machine the adapter, its engine or this process may each wait for a
core for tens of milliseconds or more, so the limit is checked in two parts:

- the adapter's deadline logic, from its own report of each turn (`--stats`) and its
  log: the move came from the engine's `bestmove` (or `ponderhit`), from the only legal
  move, or from a fallback it logs with the reason; a fallback for an engine that had
  not answered came at the adapter's own deadline (`adapters.bot.timing.budget`,
  inside the limit), not before it; and it printed the move by that deadline, give or
  take LOAD_SLACK;
- the wall time: the answer arrives within the turn's limit, give or take LOAD_SLACK.

Arena games whose subject is not time run at `lenient_time_scale`, so that a bot kept
from a core does not lose on time.
"""

from __future__ import annotations

import json
import re

from adapters.codingame import turn_format
from adapters.arena.process import BotProcess
from adapters.codingame.common import TurnFormat
from adapters.bot.timing import budget
from tests.conftest import LOAD_SLACK

#: Where the adapter's move of a turn may come from (`source` in its report).
SOURCES = {"engine", "ponderhit", "only move", "fallback"}


def lenient_time_scale(game: str) -> float:
    """The arena's factor on `game`'s time limits that gives every turn LOAD_SLACK more."""
    return 1 + LOAD_SLACK * 1000 / turn_format(game).TURN_MS


async def ask_turn(bot: BotProcess, fmt: TurnFormat, lines: list[str], first_turn: bool,
                   time_scale: float = 1.0) -> str:
    """Send one turn's lines to `bot` and return its answer line, which must come within
    the turn's limit (times `time_scale`, the bot's `--time-scale`), give or take
    LOAD_SLACK."""
    limit_ms = (fmt.FIRST_TURN_MS if first_turn else fmt.TURN_MS) * time_scale
    line, elapsed, status = await bot.ask(lines, limit_ms / 1000 + LOAD_SLACK)
    assert status == "ok", (f"{status} after {elapsed * 1000:.0f} ms, the limit being {limit_ms} ms;\n"
                            + "\n".join(bot.stderr))
    return line


def check_turn_reports(bot: BotProcess, fmt: TurnFormat, turns: int, time_scale: float = 1.0) -> list[dict]:
    """The adapter's report of each of its `turns` turns, read from the stderr of the
    ended `bot` (run with `--stats`, and `--time-scale time_scale`), checked against its
    deadline logic (see above)."""
    log = list(bot.stderr)
    reports = [json.loads(line.split("stats ", 1)[1]) for line in log if line.startswith("engine-cg: stats {")]
    assert [report["turn"] for report in reports] == list(range(1, turns + 1)), log
    for report in reports:
        turn = report["turn"]
        plan = budget(fmt, turn == 1, report["first_line_at"], time_scale)
        assert report["source"] in SOURCES, report
        late_ms = (report["printed_at"] - plan.hard_deadline) * 1000
        assert late_ms <= LOAD_SLACK * 1000, f"turn {turn} printed {late_ms:.0f} ms after the adapter's deadline"
        if report["source"] == "fallback":
            (why,) = [line for line in log if line.startswith(f"engine-cg: turn {turn}: fallback: ")]
            waited = re.search(r"no bestmove (\d+) ms into the turn", why)
            if waited:
                assert int(waited.group(1)) >= int((plan.hard_deadline - plan.started) * 1000) - 1, why
    return reports
