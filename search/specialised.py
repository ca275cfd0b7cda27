"""Each game's searches: the search kernels of `search/` bound to the game's kernels.

`searches(game, compiled)` specialises the templates of every search that fits the game
(`games.kernel.specialise`): perft, and alpha-beta with the exact solver for two-player
zero-sum games, or the multi-player searches and the tree search for more players. A
module's templates are bound to the kernels its `BINDS` names, the game's or those of
the modules before it, and to the offsets of its work block (`layout`). Compiled, each
game's are cached by numba apart; interpreted, they run the same source as plain Python.
The namespace also holds the game's own kernels (`rules`, `evaluate` and the rival
models' `predict`) in the same form, and `compiled`, which form it is.

Compiled code loads from numba's cache in a fraction of a second, and compiles in
seconds to a minute the first time after a change. `load_in_background(game)` starts
that in a thread; `ready_searches(game, compiled, stop)` gives the compiled searches once
they are loaded, waiting for them while the search's limits allow, and the interpreted
ones when they are not there in time.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from types import ModuleType, SimpleNamespace

import numpy as np

from games.base import Game, Position
from games.kernel import COMPILING, interpreted, specialise
from search import alphabeta, mcts, multiplayer, perft, pv, solver
from search.limits import StopSignal

LOG = logging.getLogger("engine.search")

#: How often a search waiting for the compiled code looks at its stop signal.
LOAD_POLL_S = 0.005
#: A search with a deadline that finds the compiled code loading waits for it, leaving
#: this share of its time to the Python core should the load not end in time.
INTERPRETED_SHARE = 0.15

_lock = threading.Lock()
_made: dict[tuple[str, bool], SimpleNamespace] = {}
_loading: dict[str, threading.Thread] = {}
_loaded: set[str] = set()
#: The thread of `prepare_compiler`, once started.
_preparing: threading.Thread | None = None


def search_modules(game: Game) -> tuple[ModuleType, ...]:
    """The search modules whose templates serve `game`, each after those whose kernels
    it binds."""
    if game.num_players == 2 and game.zero_sum:
        return (perft, pv, alphabeta, solver)
    return (perft, pv, multiplayer, mcts)


def searches(game: Game, compiled: bool = COMPILING) -> SimpleNamespace:
    """The searches of `game` and its kernels, compiled (where numba is there) or
    interpreted; made once per game and form."""
    compiled = compiled and COMPILING
    made = _made.get((game.kernel_name, compiled))
    if made is not None:
        return made
    with _lock:
        made = _made.get((game.kernel_name, compiled))
        if made is None:
            made = _made[(game.kernel_name, compiled)] = _specialise(game, compiled)
    return made


def _specialise(game: Game, compiled: bool) -> SimpleNamespace:
    kernels = {name: value for name, value in vars(game.rules).items() if not name.startswith("_")}
    kernels["evaluate"] = game.evaluation.evaluate
    kernels.update(alphabeta.probcut_binds(game.evaluation))
    kernels.update(alphabeta.accumulator_binds(game.evaluation))
    kernels.update(mcts.model_binds(game))
    if not compiled:
        kernels = {name: interpreted(value) for name, value in kernels.items()}
    made = dict(kernels, compiled=compiled)
    for module in search_modules(game):
        bindings = {name: made[name] for name in module.BINDS}
        if hasattr(module, "layout"):
            bindings.update(module.layout(kernels))
        bound = specialise(module.TEMPLATES, game.kernel_name, bindings, compiled)
        made.update(vars(bound))
    return SimpleNamespace(**made)


def prepare_compiler() -> None:
    """Start setting up numba's compiler in a background thread, for any game: its
    typing and target contexts, which the first load of compiled code would otherwise
    build first (0.14 s of a 0.23 s load). A daemon calls it as it starts, before it
    knows its game; loads wait for it."""
    global _preparing
    if not COMPILING or _preparing is not None:
        return
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import cpu_target

    def prepare() -> None:
        # Under numba's compiler lock, which every compilation and cache load takes
        # too: a refresh racing with theirs breaks the registries' generators.
        with global_compiler_lock:
            cpu_target.typing_context.refresh()
            cpu_target.target_context.refresh()

    _preparing = threading.Thread(target=prepare, name="prepare-compiler", daemon=True)
    _preparing.start()


def warm(game: Game) -> None:
    """Load `game`'s compiled searches (compiling them the first time) by calling each
    entry point once; from then on `ready_searches` gives them."""
    if _preparing is not None:
        _preparing.join()
    made = searches(game, True)
    start = game.initial_state({})
    for module in search_modules(game):
        module.warm(made, start)
    # numba's loaded code brings hundreds of thousands of objects that live as long as the
    # process. Left to the collector, each full collection walks them all: 36-42 ms in
    # the middle of a search, past the margin of a 75 ms CodinGame turn. Frozen, it
    # skips them.
    gc.freeze()
    _loaded.add(game.kernel_name)


def load_in_background(game: Game) -> None:
    """Start `warm(game)` in a background thread unless it is loaded or loading."""
    if not COMPILING:
        return
    with _lock:
        if game.kernel_name in _loaded or game.kernel_name in _loading:
            return
        thread = threading.Thread(target=_warm_logged, args=(game,), name=f"load-{game.kernel_name}", daemon=True)
        _loading[game.kernel_name] = thread
        thread.start()  # within the lock: `loading` never sees it registered but not alive


def finish_loading(timeout: float) -> None:
    """Wait, at most `timeout` seconds in all, for the background work on compiled code
    under way (setting up the compiler, loading a game's searches): a process that ends
    while such a thread is inside numba's native code can abort, the interpreter ending
    the thread where it stands."""
    deadline = time.monotonic() + timeout
    for thread in [_preparing, *list(_loading.values())]:
        if thread is not None:
            thread.join(max(0.0, deadline - time.monotonic()))


def loaded() -> tuple[str, ...]:
    """The kernels' names of the games whose compiled searches are loaded, sorted."""
    return tuple(sorted(_loaded))


def loading(game: Game) -> bool:
    """Whether a background load of `game`'s compiled searches is under way (a failed
    one is over: its searches stay interpreted)."""
    thread = _loading.get(game.kernel_name)
    return thread is not None and thread.is_alive() and game.kernel_name not in _loaded


def ready_searches(game: Game, compiled: bool, stop: StopSignal | None = None) -> SimpleNamespace:
    """The searches a search of `game` runs now: compiled when asked and loaded (loaded
    here and now when no background load is under way). While a background load runs,
    a search under `stop` waits for it (see `_wait_for_load`: until stopped, or until
    most of the time to its deadline has gone), and runs interpreted only if the load
    has not finished by then; without `stop` it runs interpreted at once."""
    if compiled and COMPILING and game.kernel_name not in _loaded:
        thread = _loading.get(game.kernel_name)
        if thread is None:
            warm(game)
        else:
            if stop is not None:
                _wait_for_load(thread, stop)
            if game.kernel_name not in _loaded:
                return searches(game, False)
    return searches(game, compiled)


def _wait_for_load(thread: threading.Thread, stop: StopSignal) -> None:
    """Wait for the loading `thread` while `stop` lets a search wait: until it is
    stopped, or, once a deadline is armed, until only INTERPRETED_SHARE of the time to
    it is left (counted from when this wait first sees that deadline).

    Waiting, rather than searching on the Python core at once, leaves the interpreter to
    the load: a search run by the interpreter beside it takes turns with it for Python's
    global lock, which made a 0.3 s load take 0.9 s and kept the event loop from writing
    the watchdog's answer in time."""
    deadline_seen: int | None = None
    wait_until = 0
    while thread.is_alive() and not stop.stopped:
        deadline = stop.deadline_ns
        if deadline is not None:
            now = time.monotonic_ns()
            if deadline != deadline_seen:
                deadline_seen = deadline
                wait_until = deadline - int(INTERPRETED_SHARE * max(deadline - now, 0))
            if now >= wait_until:
                return
        thread.join(LOAD_POLL_S)


def upgraded(game: Game, kernels: SimpleNamespace, compiled: bool) -> SimpleNamespace:
    """The searches the next iteration of a search runs: the compiled ones once they
    are loaded, where the search asked for them but started on the interpreted ones
    while they loaded; else `kernels`. The work block and the table carry over, so the
    search goes on where it was."""
    if compiled and not kernels.compiled and game.kernel_name in _loaded:
        return searches(game, True)
    return kernels


def standing_in(kernels: SimpleNamespace, compiled: bool) -> bool:
    """Whether `kernels` are the interpreted searches standing in, late in a search's
    time, for compiled ones still loading (see `ready_searches`). Such a search does not
    insist on finishing its first iteration past its deadline: it answers with the best
    move of that iteration so far."""
    return compiled and COMPILING and not kernels.compiled


class GameSearches:
    """The searches a searcher of one game runs, in the form it asked for (`compiled`,
    where numba is there): what `ready_searches`, `upgraded` and `standing_in` say for
    that game and form. A searcher is given one at construction (`search.new_searcher`)."""

    def __init__(self, game: Game, compiled: bool):
        self.game = game
        self.compiled = compiled and COMPILING

    def ready(self, stop: StopSignal | None = None) -> SimpleNamespace:
        """The searches a search starts on (`ready_searches`)."""
        return ready_searches(self.game, self.compiled, stop)

    def upgraded(self, kernels: SimpleNamespace) -> SimpleNamespace:
        """The searches its next iteration runs (`upgraded`)."""
        return upgraded(self.game, kernels, self.compiled)

    def standing_in(self, kernels: SimpleNamespace) -> bool:
        """Whether `kernels` stand in for compiled ones still loading (`standing_in`)."""
        return standing_in(kernels, self.compiled)


def perft_leaves(position: Position, depth: int, compiled: bool = COMPILING) -> int:
    """Leaf count at exactly `depth` plies from `position`, counted by the game's
    compiled kernels (loading them first) or interpreted ones."""
    return int(searches(position.game, compiled).leaves(position.s, np.int64(depth), perft.halt_flag()))


def _warm_logged(game: Game) -> None:
    started = time.monotonic()
    try:
        warm(game)
    except Exception:
        LOG.exception("the compiled searches of %s failed to load: they stay interpreted", game.kernel_name)
        return
    LOG.info("compiled searches of %s loaded in %.2f s", game.kernel_name, time.monotonic() - started)
