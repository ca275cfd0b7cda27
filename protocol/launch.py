"""The command that starts an `engine` process of this install, for a client to start
(`protocol.client.Engine.popen`) or a daemon to be started with."""

from __future__ import annotations

import sys
from pathlib import Path


def engine_command(*arguments: str) -> list[str]:
    """The `engine` console script beside this Python (else `python -m daemon.main`),
    with `arguments`."""
    script = Path(sys.executable).parent / "engine"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "daemon.main"]
    return [*base, *arguments]
