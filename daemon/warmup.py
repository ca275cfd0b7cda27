"""Compiles (or loads from numba's cache) every game's kernels and searches, so that no
session pays for it: `python -m daemon.warmup [--if-cold]`.

The first run after an install or a source change compiles for a minute or two; later
runs find the cache (see `games.kernel.cache_dir`). `--if-cold` does nothing when an
earlier run prepared every game for the current sources (it leaves a `prepared` file).
Progress goes to stderr; the exit status is 0 also where numba is missing (the engine
then runs its kernels interpreted).
"""

from __future__ import annotations

import argparse
import sys
import time

from games import all_games
from games.kernel import NUMBA_MISSING, cache_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--if-cold", action="store_true",
                        help="only when the cache of the current sources is not prepared yet")
    arguments = parser.parse_args(argv)
    if NUMBA_MISSING:
        print(f"kernels not compiled: {NUMBA_MISSING}; the engine will run them interpreted",
              file=sys.stderr)
        return 0
    marker = cache_dir() / "prepared"
    if arguments.if_cold and marker.exists():
        return 0
    from search.specialised import warm

    print(f"compiling the kernels into {cache_dir()} ...", file=sys.stderr)
    for name, game in all_games().items():
        started = time.monotonic()
        warm(game)
        print(f"  {name}: {time.monotonic() - started:.1f} s", file=sys.stderr)
    marker.write_text("every game's compiled kernels and searches are in this cache\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
