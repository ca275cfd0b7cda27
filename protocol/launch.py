"""The command that starts an `engine` process of this install, for a client to start
(`protocol.client.Engine.popen`) or a daemon to be started with, and the environment
such a child process gets."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Mapping


def engine_command(*arguments: str) -> list[str]:
    """The `engine` console script beside this Python (else `python -m daemon.cli`),
    with `arguments`."""
    script = Path(sys.executable).parent / "engine"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "daemon.cli"]
    return [*base, *arguments]


def single_blas_thread(env: Mapping[str, str]) -> dict[str, str]:
    """`env` for a child process (an engine, a bot) with one BLAS thread, unless it sets
    OPENBLAS_NUM_THREADS itself. As it loads, numpy's OpenBLAS starts a thread per core,
    each spinning for a while: 0.1-0.25 s of CPU per process on a two-core machine, more
    with more cores, taken from the processes starting beside it. The engine does no
    linear algebra, and a CodinGame bot has one core."""
    return {"OPENBLAS_NUM_THREADS": "1", **env}
