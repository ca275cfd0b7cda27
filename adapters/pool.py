"""Where a match's games (or an analysis's positions) run: in this process, in a pool of
local processes, or as Ray tasks on a Ray cluster; results come back in the order they
finish.

A job is a picklable callable (the arena's `run_game`, selfplay's `play_selfplay`,
`engine-analyse`'s `analyse_position`) applied to one picklable spec per game or
position. Each takes one core at a time, so one task asks Ray for one CPU.

`ray` names the cluster as `ray.init` does: `auto` joins the cluster this machine
belongs to (started with `ray start --head` or `ray start --address`), `HOST:PORT`
joins that head, and `local` starts a private in-process cluster of `jobs` CPUs.
Every Ray node needs the project installed, with its numba cache warm
(`python -m daemon.warmup`), as on this machine.
"""

from __future__ import annotations

import concurrent.futures
import signal
from typing import Any, Callable, Iterator, Sequence

#: How long to wait for Ray's workers to finish when the driver stops early, seconds.
RAY_CANCEL_GRACE = 5.0


class Runs:
    """The results of `function(spec)` for every spec, as they finish (`__iter__`).

    `close()` abandons the games not yet finished (an SPRT decided, an interrupt);
    the pool and any Ray cluster it started go with it. Use as a context manager."""

    def __init__(self, function: Callable[[Any], Any], specs: Sequence[Any], jobs: int,
                 ray: str | None = None):
        self.function, self.specs, self.jobs, self.ray = function, list(specs), jobs, ray
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._futures: list[concurrent.futures.Future] = []
        self._ray_refs: list = []
        self._ray_started = False

    def __enter__(self) -> "Runs":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Any]:
        if not self.specs:
            return
        if self.ray is not None:
            yield from self._ray()
        elif self.jobs == 1:
            for spec in self.specs:
                yield self.function(spec)
        else:
            self._pool = concurrent.futures.ProcessPoolExecutor(max_workers=self.jobs,
                                                                initializer=_leave_interrupts)
            self._futures = [self._pool.submit(self.function, spec) for spec in self.specs]
            for future in concurrent.futures.as_completed(self._futures):
                yield future.result()

    def _ray(self) -> Iterator[Any]:
        import ray  # an optional dependency: only a --ray run needs it

        if not ray.is_initialized():
            if self.ray == "local":
                ray.init(num_cpus=self.jobs, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=self.ray, log_to_driver=False)
            self._ray_started = True
        task = ray.remote(num_cpus=1, max_retries=2)(self.function)
        self._ray_refs = [task.remote(spec) for spec in self.specs]
        pending = list(self._ray_refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])

    def close(self) -> None:
        for future in self._futures:
            future.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._ray_refs:
            import ray

            for ref in self._ray_refs:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001 - a finished task cannot be cancelled
                    pass
            self._ray_refs = []
        if self._ray_started:
            import ray

            ray.shutdown()
            self._ray_started = False


def _leave_interrupts() -> None:
    """A worker leaves Ctrl-C to the driver, which ends the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def ray_argument(text: str) -> str:
    """The value of a `--ray` option: `local`, `auto` or an address (`HOST:PORT`,
    `ray://HOST:PORT`)."""
    if text in ("local", "auto") or ":" in text:
        return text
    raise ValueError(f"--ray takes local, auto or HOST:PORT, not {text!r}")
