"""Loading the compiled code: a search that finds it loading waits for it within its
limits, and loading it does not pull in scipy."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from games import all_games
from games.kernel import COMPILING
from search import specialised
from search.limits import StopSignal
from search.specialised import INTERPRETED_SHARE, _wait_for_load


def loader(seconds: float) -> threading.Thread:
    """A thread that stands in for a load of `seconds`."""
    thread = threading.Thread(target=time.sleep, args=(seconds,), daemon=True)
    thread.start()
    return thread


def in_a_fresh_process(code: str) -> str:
    """What the Python `code` prints, run in a process of its own (it must succeed)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def waited(thread: threading.Thread, stop: StopSignal) -> float:
    started = time.monotonic()
    _wait_for_load(thread, stop)
    return time.monotonic() - started


def test_a_search_without_deadline_waits_for_the_load_to_end() -> None:
    thread = loader(0.2)
    assert waited(thread, StopSignal()) >= 0.19
    assert not thread.is_alive()


def test_stop_ends_the_wait() -> None:
    stop = StopSignal()
    threading.Timer(0.1, stop.stop).start()
    thread = loader(5)
    assert waited(thread, stop) < 2
    assert thread.is_alive()


def test_a_deadline_leaves_its_last_share_to_the_python_core() -> None:
    stop = StopSignal()
    stop.arm(time.monotonic_ns() + 400_000_000, None, None)
    thread = loader(5)
    elapsed = waited(thread, stop)
    assert 0.4 * (1 - INTERPRETED_SHARE) - 0.01 <= elapsed < 0.4
    assert thread.is_alive()


def test_a_load_that_ends_in_time_ends_the_wait() -> None:
    stop = StopSignal()
    stop.arm(time.monotonic_ns() + 5_000_000_000, None, None)
    thread = loader(0.1)
    assert waited(thread, stop) < 3
    assert not thread.is_alive()


def test_a_deadline_armed_during_the_wait_counts_from_then() -> None:
    """A ponder search waits unarmed; `ponderhit` arms its clock."""
    stop = StopSignal()
    armed: list[float] = []

    def ponderhit() -> None:
        armed.append(time.monotonic())
        stop.arm(time.monotonic_ns() + 400_000_000, None, None)

    threading.Timer(0.2, ponderhit).start()
    thread = loader(5)
    waited(thread, stop)
    # The wait's end counts from the arming, whenever the timer's thread got to it.
    assert 0.4 * (1 - INTERPRETED_SHARE) - 0.01 <= time.monotonic() - armed[0] < 0.4 + 0.5
    assert thread.is_alive()


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_loading_a_games_compiled_code_leaves_scipy_alone() -> None:
    """Where scipy is installed, numba would import it (0.3 s in all) for linear algebra
    that no kernel does."""
    pytest.importorskip("scipy")
    code = ("import sys\n"
            "from games import find_game\n"
            "from search.specialised import warm\n"
            "warm(find_game('clobber'))\n"
            "print('scipy' in sys.modules)\n"
            "import scipy.linalg\n"
            "print(scipy.linalg.det([[2.0]]))\n")
    assert in_a_fresh_process(code).split() == ["False", "2.0"]


@pytest.mark.skipif(not COMPILING, reason="numba is not installed")
@pytest.mark.parametrize("name", sorted(all_games()))
def test_loading_compiles_every_entry_point_a_search_calls(name: str) -> None:
    """Every kernel the searches call from Python (a public one, not inlined into its
    callers) is loaded by `warm`: one left to its first call compiles (or loads) in the
    middle of a search, seconds on a cold cache."""
    game = all_games()[name]
    specialised.warm(game)
    made = specialised.searches(game, True)
    for module in specialised.search_modules(game):
        for template in module.TEMPLATES:
            if not template.__name__.startswith("_") and not getattr(template, "inline", False):
                assert getattr(made, template.__name__).signatures, (module.__name__, template.__name__)


@pytest.mark.skipif(not COMPILING, reason="numba is not installed")
def test_an_interpreted_search_calls_no_compiled_kernel() -> None:
    """The Python core searches while the compiled code loads: a single call of a
    compiled kernel from it would first load numba's machinery (0.4 s), longer than a
    short `go movetime` gives it. In a fresh process, a search of every game leaves
    every kernel of the games and the searches uncompiled and unloaded."""
    code = ("import sys\n"
            "from numba.core.registry import CPUDispatcher\n"
            "from games import all_games, find_game\n"
            "from search import new_searcher\n"
            "from search.limits import StopSignal\n"
            "from search.tt import TranspositionTable\n"
            "for name in sorted(all_games()):\n"
            "    game = find_game(name)\n"
            "    table = TranspositionTable(game.name, game.rules.KEY_SCHEME, 1 << 20)\n"
            "    stop = StopSignal()\n"
            "    stop.arm(None, None, 2)\n"
            "    list(new_searcher(game, table, compiled=False).search(game.initial_state({}), stop))\n"
            "print(sorted({f'{module}.{name}' for module, loaded in list(sys.modules.items())\n"
            "              if module.split('.')[0] in ('games', 'search')\n"
            "              for name, value in vars(loaded).items()\n"
            "              if isinstance(value, CPUDispatcher) and value.overloads}))\n")
    assert in_a_fresh_process(code).strip() == "[]"
