"""Compiles (or loads from numba's cache) every game's kernels and searches, with each of
its evaluations, so that no session pays for it: `python -m daemon.warmup [--if-cold]`.

The first run after an install or a source change compiles for a minute or two; later
runs find the cache (see `games.kernel.cache_dir`). `--if-cold` does nothing more when an
earlier run prepared every game for the current sources (it leaves a `prepared` file).
Progress goes to stderr; the exit status is 0 also where numba is missing (the engine
then runs its kernels interpreted).

Every run also compiles the project's own modules to bytecode where it is stale (a few
stat calls when it is not). Where Python does not write bytecode as it imports
(PYTHONDONTWRITEBYTECODE, a read-only checkout run by another user), every engine start
would otherwise compile them again: 0.1-0.2 s of a CodinGame first turn.
"""

from __future__ import annotations

import argparse
import compileall
import sys
import time
from pathlib import Path

from games import all_games
from games.kernel import NUMBA_MISSING, cache_dir

#: The project's packages, beside this one.
ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("adapters", "daemon", "games", "protocol", "search")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--if-cold", action="store_true",
                        help="only when the cache of the current sources is not prepared yet")
    arguments = parser.parse_args(argv)
    compile_bytecode()
    if NUMBA_MISSING:
        print(f"kernels not compiled: {NUMBA_MISSING}; the engine will run them interpreted",
              file=sys.stderr)
        return 0
    marker = cache_dir() / "prepared"
    if arguments.if_cold and marker.exists():
        return 0
    from search.specialised import warm

    print(f"compiling the kernels into {cache_dir()} ...", file=sys.stderr)
    for game in all_games().values():
        for variant in map(game.with_evaluation, game.evaluations):
            started = time.monotonic()
            warm(variant)
            print(f"  {variant.kernel_name}: {time.monotonic() - started:.1f} s", file=sys.stderr)
    marker.write_text("every game's compiled kernels and searches are in this cache\n")
    return 0


def compile_bytecode() -> None:
    """Compile the project's packages to bytecode where it is missing or stale."""
    for package in PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=1)


if __name__ == "__main__":
    sys.exit(main())
