"""Compiles (or loads from the cache) every game's compiled functions, so that no
session pays for it: `python -m compiled.warmup [--if-cold]`.

The first run after an install or a source change compiles for a minute or two; later
runs find the cache (see `compiled.cache_dir`). `--if-cold` does nothing when an
earlier run prepared every game for the current sources (it leaves a `prepared` file). Progress goes to stderr; the exit status is 0
also where numba is missing (the engine then runs its Python core).
"""

from __future__ import annotations

import argparse
import sys
import time

import compiled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--if-cold", action="store_true",
                        help="only when the cache of the current sources is not prepared yet")
    arguments = parser.parse_args(argv)
    marker = compiled.cache_dir() / "prepared"
    if arguments.if_cold and marker.exists():
        return 0
    missing = compiled.configure()
    if missing:
        print(f"compiled core not prepared: {missing}; the engine will search with its Python core",
              file=sys.stderr)
        return 0
    from compiled import runtime
    from games import all_games, find_game

    print(f"preparing the compiled core in {compiled.cache_dir()} ...", file=sys.stderr)
    for name in all_games():
        game = find_game(name)
        if not runtime.supports(game):
            continue
        started = time.monotonic()
        runtime.warm(game)
        print(f"  {name}: {time.monotonic() - started:.1f} s", file=sys.stderr)
    marker.write_text("every game's compiled functions are in this cache\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
