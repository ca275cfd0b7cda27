"""The adapter's link to a real engine process: answers told apart by search, and the
`isready` barrier read through the lines of searches."""

from __future__ import annotations

import time

from adapters.bot.link import EngineLink
from protocol.client import Engine
from tests.conftest import engine_command, run


def test_ready_waits_for_its_own_readyok_among_search_lines() -> None:
    async def scenario() -> None:
        link = EngineLink(await Engine.popen(engine_command()))
        try:
            assert await link.send(["setgame clobber"])
            assert not link.loaded
            number = await link.search(["position startpos", "go depth 3"])
            # A running search does not hold the barrier up; the lines read on the way
            # still count as the search's.
            assert await link.ready(time.monotonic() + 60)
            assert not link.loaded  # answered while the search ran
            answer = await link.answer(number, time.monotonic() + 60)
            assert answer is not None and answer.move is not None and answer.pv
            assert not link.pending
            # A deadline already past: no wait, no readyok; the late one is not taken
            # for the next barrier's.
            assert not await link.ready(time.monotonic() - 1)
            assert await link.ready(time.monotonic() + 60)
            assert link.loaded
            assert link._readies == link._ready_asked == 3
        finally:
            await link.close()
        # A closed link is ready for nothing.
        assert not await link.ready(time.monotonic() + 1)

    run(scenario())
