"""Make the labelled positions a game's pattern evaluation is trained on
(`scripts/train_patterns`), for a game that has a `training` module
(games/<game>/training.py: its expert games, its positions as rows of bitboards, the
features of its patterns).

    scripts/pattern_data positions GAME FOLDER [--out DIR] [--games N]
    scripts/pattern_data solve GAME [--out DIR] [--max-empties 18] [--workers N | --ray]
                                    [--limit N] [--deadline S]
    scripts/pattern_data search GAME [--out DIR] [--depth 10] [--min-empties 25]
                                     [--max-empties 44] [--per-empties 5000]
                                     [--workers N | --ray] [--deadline S] [--seed S]
    scripts/pattern_data selfplay GAME [--out DIR] [--games N] [--random-plies 10]
                                       [--depth 4] [--workers N | --ray] [--seed S]
    scripts/pattern_data subset GAME FILE [--max-empties 17] [--out DIR]
    scripts/pattern_data merge GAME FILE [--out DIR]
    scripts/pattern_data summary GAME [--out DIR]

`positions` replays every expert game in FOLDER (read in place, never copied) and keeps
each distinct position once, from the side to move's view, with two labels of its final
margin for the side to move: the *theoretical* score of the games that reached it (the
result of perfect play from a fixed point of the game, which the database records; the
mean over those games) and their real final score (the mean too). Writes DIR/expert.npz.

`selfplay` plays games between the engine's own searches (`--depth` plies, the game's
default evaluation) from openings of `--random-plies` random moves, and keeps each
distinct position with the mean real final margin of its games. Writes
DIR/selfplay-SEED.npz.

`solve` labels every position of at most `--max-empties` empty squares in DIR/*.npz with
its exact margin (the engine's endgame solver, CodinGame's rule: empty squares at the end
go to no one), fewest empty squares first, on every core (`--workers`, default all;
`--ray` spreads the work with ray instead), until `--deadline` seconds have gone. The
margins go to a file beside each, NAME.exact.npy (-128: not solved), saved as they come:
a second run solves only what is left.

`search` labels positions of the middle game (`--min-empties` to `--max-empties` empty
squares, up to `--per-empties` of each count, drawn at random) with the score of the
engine's search to `--depth` at its defaults (the game's default evaluation and
selectivity, a fresh table each), the mean of its last two iterations, in margin units,
into NAME.search.npy beside each file (NaN: not searched), saved as they come: a second
run searches only what is left. It works on every core like `solve` and prints the
positions an hour a core at each count.

`subset` writes the boards alone of DIR/expert.npz's positions near the end to FILE,
small enough to carry to another machine and solve there (`solve --out` its folder);
`merge` copies the margins solved there (FILE and its FILE.exact.npy, brought back) to
the positions of DIR that are the same.

`summary` prints how many positions there are by number of empty squares, and how many
are solved and searched.

DIR defaults to `.cache/training/GAME` in the project (ignored by git). Every file holds,
per position: `boards` (uint64, the game's row of bitboards), `empties`, `theory` and
`real` (float32 margins, NaN where unknown) and `count` (games through the position).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

#: `exact` of a position not solved.
UNSOLVED = -128
#: Positions a solving worker takes at a time.
CHUNK = 2000


def training_module(game_name: str) -> ModuleType:
    """The game's `training` module; exits for a game without one of margins (a
    two-player game's: a game of more players trains by `train_td`)."""
    from games import find_game

    game = find_game(game_name)
    if game.training is None or game.num_players != 2:
        raise SystemExit(f"pattern_data: {game.name} has no pattern training of margins"
                         f" (games/{game.name}/training.py)")
    return game.training


def default_folder(game_name: str) -> Path:
    return ROOT / ".cache" / "training" / game_name


def read_boards(game_name: str, path: Path) -> tuple[ModuleType, np.ndarray, np.ndarray]:
    """(the game's `training` module, the boards, their empty squares) of the data file
    `path`."""
    training = training_module(game_name)
    with np.load(path) as stored:
        boards = stored["boards"]
        empties = stored["empties"] if "empties" in stored else training.empty_squares(boards)
    return training, boards, empties


# ---- files ----------------------------------------------------------------------------------


def save(path: Path, data: dict[str, np.ndarray]) -> None:
    """Write `data` to `path` atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial.npz")
    np.savez(partial, **data)
    os.replace(partial, path)


def load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def exact_path(path: Path) -> Path:
    """The file of exact margins beside the positions file `path`."""
    return path.with_name(path.stem + ".exact.npy")


def searched_path(path: Path) -> Path:
    """The file of deep-search scores beside the positions file `path`."""
    return path.with_name(path.stem + ".search.npy")


def _sidecar(sidecar: Path, size: int, missing: np.ndarray) -> np.ndarray:
    """The labels of `sidecar` when it holds `size` of them, else `size` copies of
    `missing` (a scalar of the labels' type)."""
    if sidecar.exists():
        labels = np.load(sidecar, allow_pickle=False)
        if len(labels) == size:
            return labels
    return np.full(size, missing, dtype=missing.dtype)


def exact_labels(path: Path, size: int) -> np.ndarray:
    """The exact margins of the `size` positions of `path` solved so far (UNSOLVED for
    the others)."""
    return _sidecar(exact_path(path), size, np.int8(UNSOLVED))


def searched_labels(path: Path, size: int) -> np.ndarray:
    """The deep-search scores (margin units, float32) of the `size` positions of `path`
    searched so far (NaN for the others)."""
    return _sidecar(searched_path(path), size, np.float32(np.nan))


def row_keys(boards: np.ndarray) -> np.ndarray:
    """The rows of `boards` as one sortable array."""
    return np.ascontiguousarray(boards).view([(f"b{column}", "<u8") for column in range(boards.shape[1])]).ravel()


def distinct(training: ModuleType, boards: np.ndarray, labels: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each distinct row of `boards` once, sorted, with the mean of each label over its
    copies (NaN copies left out), its `count` of copies and its `empties`."""
    keys = row_keys(boards)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    out = {"boards": boards[order][starts], "count": np.diff(np.append(starts, len(keys))).astype(np.int32)}
    for name, values in labels.items():
        values = values[order].astype(np.float64)
        known = ~np.isnan(values)
        sums = np.add.reduceat(np.where(known, values, 0.0), starts)
        numbers = np.add.reduceat(known.astype(np.int64), starts)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[name] = (sums / numbers).astype(np.float32)
    out["empties"] = training.empty_squares(out["boards"])
    return out


# ---- the expert games ---------------------------------------------------------------------


def expert(game_name: str, folder: Path, out: Path, limit: int | None) -> None:
    training = training_module(game_name)
    started = time.perf_counter()
    try:
        positions, said = training.expert_positions(folder, limit)
    except ValueError as error:
        raise SystemExit(f"pattern_data: {error}")
    print(f"{folder}: {said} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    data = distinct(training, positions["boards"], {"theory": positions["theory"], "real": positions["real"]})
    save(out / "expert.npz", data)
    print(f"{len(data['boards'])} distinct positions -> {out / 'expert.npz'}", file=sys.stderr)


# ---- exact solves ---------------------------------------------------------------------------

_solver = None


def _solve_chunk(task: tuple[str, np.ndarray]) -> tuple[np.ndarray, float]:
    """The exact margins of the positions (rows of boards) of a game, and the seconds
    they took; in a worker, with its own solver table."""
    global _solver
    from games import find_game
    from search.solver import new_solver_table
    from search.specialised import searches
    from search.work import accumulator_rows, move_rows, new_work

    game_name, boards = task
    if _solver is None:
        kernels = searches(find_game(game_name), True)
        _solver = (training_module(game_name), kernels, new_solver_table(64 << 20),
                   new_work(kernels.HISTORY_MASK + 1), move_rows(kernels.MAX_MOVES),
                   accumulator_rows(kernels.ACCUMULATOR))
    training, kernels, table, work, moves, accumulators = _solver
    limit = kernels.MARGIN_LIMIT + 1
    started = time.perf_counter()
    margins = np.empty(len(boards), dtype=np.int8)
    for index, row in enumerate(boards):
        margins[index] = kernels.solve(training.state_of(row), -limit, limit, table, work, moves, accumulators)
    return margins, time.perf_counter() - started


def solve_files(game_name: str, out: Path, max_empties: int, workers: int, use_ray: bool, limit: int | None,
                deadline_s: float | None) -> None:
    """Solve every position of at most `max_empties` empty squares in out/*.npz not yet
    solved, fewest empty squares first, until `deadline_s` seconds have gone (saving as
    it goes); print the rate at each number of empty squares."""
    started = time.perf_counter()
    for path in sorted(out.glob("*.npz")):
        data = load(path)
        empties = data["empties"] if "empties" in data else training_module(game_name).empty_squares(data["boards"])
        exact = exact_labels(path, len(empties))
        todo = np.flatnonzero((empties <= max_empties) & (exact == UNSOLVED))
        if limit:
            todo = todo[:limit]
        todo = todo[np.argsort(empties[todo], kind="stable")]
        chunks = [todo[start:start + CHUNK] for start in range(0, len(todo), CHUNK)]
        results = _map(_solve_chunk, [(game_name, data["boards"][chunk]) for chunk in chunks], workers, use_ray)
        _gather(path, exact_path(path), exact, empties, chunks, results, started, deadline_s, "solved",
                lambda: f"{int((exact[todo] != UNSOLVED).sum())}/{len(todo)} solved")


def _gather(path: Path, sidecar: Path, labels: np.ndarray, empties: np.ndarray, chunks: list[np.ndarray], results,
            started: float, deadline_s: float | None, verb: str, progress) -> None:
    """Store each chunk's (labels, seconds) of `results` into `labels` as they come,
    saving them to `sidecar` every 20 chunks, at the end, and at `deadline_s` seconds
    after `started`, where it stops; print `progress()` as it saves, and the positions
    an hour a core at each count of empty squares (those `verb`)."""
    busy: dict[int, list[float]] = {}
    for done, (chunk, (values, seconds)) in enumerate(zip(chunks, results), 1):
        labels[chunk] = values
        spent = busy.setdefault(int(empties[chunk].max()), [0, 0.0])
        spent[0] += len(chunk)
        spent[1] += seconds
        over = deadline_s is not None and time.perf_counter() - started > deadline_s
        if done % 20 == 0 or done == len(chunks) or over:
            np.save(sidecar, labels)
            print(f"{path.name}: {progress()}, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        if over:
            results.close()
            break
    np.save(sidecar, labels)
    for count, (labelled, seconds) in sorted(busy.items()):
        print(f"{path.name}: at {count} empty squares, {labelled} {verb}, "
              f"{labelled / max(seconds, 1e-9) * 3600:,.0f} positions an hour a core", file=sys.stderr)


# ---- deep searches ------------------------------------------------------------------------

#: Positions a searching worker takes at a time.
SEARCH_CHUNK = 25


def _search_chunk(task: tuple[str, np.ndarray, int]) -> tuple[np.ndarray, float]:
    """The deep-search scores (margin units) of the positions (rows of boards) of a game,
    each searched to `depth` with an emptied table, and the seconds they took; in a
    worker. A score is the exact margin where the search solved the position, else the
    mean of the last two iterations' (a fixed-depth score swings with the parity of the
    depth) that are not proven results without a margin. NaN for a position without a
    move, or with no such score."""
    from tools.searching import analyse_board, tool_engine
    from games import find_game
    from games.base import Position
    from search.base import MATE_BOUND
    from search.limits import Limits

    game_name, boards, depth = task
    game, training, engine = find_game(game_name), training_module(game_name), tool_engine(game_name)
    limit = game.rules.MARGIN_LIMIT
    started = time.perf_counter()
    scores = np.full(len(boards), np.nan, dtype=np.float32)
    for index, row in enumerate(boards):
        position = Position(game, training.state_of(row))
        if not position.legal_moves():
            continue
        reports = analyse_board(engine, game.format_board(position), Limits(depth=depth))
        margins = [report.margin for report in reports if report.margin is not None]
        if margins:
            scores[index] = margins[-1]
            continue
        last = {report.depth: report.score for report in reports
                if not report.final and report.pv and abs(report.score) < MATE_BOUND}
        depths = sorted(last)[-2:]
        if depths:
            scores[index] = np.clip(sum(last[d] for d in depths) / len(depths) / 100, -limit, limit)
    return scores, time.perf_counter() - started


def search_files(game_name: str, out: Path, depth: int, low: int, high: int, per_empties: int, workers: int,
                 use_ray: bool, deadline_s: float | None, seed: int) -> None:
    """Label up to `per_empties` positions of each count of empty squares from `low` to
    `high` in out/*.npz (drawn at random, seeded) with a deep search's score, the counts
    taken in turn so that a `deadline_s` stop leaves them evenly labelled (saving as it
    goes); print the rate at each count."""
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    for path in sorted(out.glob("*.npz")):
        data = load(path)
        empties = data["empties"]
        searched = searched_labels(path, len(empties))
        exact = exact_labels(path, len(empties))
        picks = []
        for count in range(low, high + 1):
            here = np.flatnonzero((empties == count) & (exact == UNSOLVED))
            picks.append(rng.permutation(here)[:per_empties])
        # Round-robin over the counts, chunk by chunk, skipping what an earlier run did.
        chunks = []
        for start in range(0, max((len(pick) for pick in picks), default=0), SEARCH_CHUNK):
            for pick in picks:
                chunk = pick[start:start + SEARCH_CHUNK]
                chunk = chunk[np.isnan(searched[chunk])]
                if len(chunk):
                    chunks.append(chunk)
        results = _map(_search_chunk, [(game_name, data["boards"][chunk], depth) for chunk in chunks], workers,
                       use_ray)
        _gather(path, searched_path(path), searched, empties, chunks, results, started, deadline_s, "searched",
                lambda: f"{int((~np.isnan(searched)).sum())} searched to depth {depth}")


def _map(function, items: list, workers: int, use_ray: bool):
    """function(item) for each item, in order, yielded as they come: in `workers`
    processes, or as ray tasks."""
    if use_ray:
        import ray

        ray.init(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
        remote = ray.remote(function)
        for future in [remote.remote(item) for item in items]:
            yield ray.get(future)
        return
    if workers <= 1:
        yield from map(function, items)
        return
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        yield from pool.imap(function, items)


def subset(game_name: str, out: Path, max_empties: int, to: Path) -> None:
    """Write the boards alone of the positions of at most `max_empties` empty squares of
    out/expert.npz to `to`."""
    data = load(out / "expert.npz")
    near = np.flatnonzero(data["empties"] <= max_empties)
    save(to, {"boards": data["boards"][near]})
    print(f"{len(near)} positions of at most {max_empties} empty squares -> {to}", file=sys.stderr)


def merge(out: Path, source: Path) -> None:
    """Copy the exact margins solved for the positions of `source` into those of out/*.npz
    that hold the same positions."""
    other = load(source)
    other_exact = exact_labels(source, len(other["boards"]))
    solved = other_exact != UNSOLVED
    other_keys = row_keys(other["boards"][solved])
    order = np.argsort(other_keys)
    other_keys, other_exact = other_keys[order], other_exact[solved][order]
    for path in sorted(out.glob("*.npz")):
        if path.resolve() == source.resolve():
            continue
        data = load(path)
        exact = exact_labels(path, len(data["boards"]))
        mine = row_keys(data["boards"])
        at = np.minimum(np.searchsorted(other_keys, mine), len(other_keys) - 1)
        found = other_keys[at] == mine
        exact[found] = other_exact[at[found]]
        np.save(exact_path(path), exact)
        print(f"{path.name}: {int(found.sum())} exact margins from {source.name}", file=sys.stderr)


# ---- self-play ------------------------------------------------------------------------------


def _selfplay_games(task: tuple[str, int, int, int, int]) -> list[tuple[list[tuple[int, ...]], list[int], int]]:
    """Play `games` games from openings of `random_plies` random moves, each side
    searching `depth` plies: per game, its positions' rows, who was to move in each, and
    the final margin for player 0."""
    import random

    from games import find_game
    from search import new_searcher
    from search.limits import StopSignal
    from search.tt import TranspositionTable

    game_name, seed, games, random_plies, depth = task
    rng = random.Random(seed)
    game = find_game(game_name)
    training = training_module(game_name)
    searcher = new_searcher(game, TranspositionTable(game.name, game.rules.KEY_SCHEME, 32 << 20), compiled=True)
    played = []
    for _ in range(games):
        position = game.initial_state({})
        rows, movers = [], []
        while position.outcome() is None:
            rows.append(training.row_of(position.s))
            movers.append(position.to_move)
            if len(rows) <= random_plies:
                move = rng.choice(position.legal_moves())
            else:
                stop = StopSignal()
                stop.arm(None, None, depth)
                move = list(searcher.search(position, stop))[-1].pv[0]
            position = position.play(move)
        played.append((rows, movers, position.outcome().margin[0]))
    return played


def selfplay(game_name: str, out: Path, games: int, random_plies: int, depth: int, workers: int, use_ray: bool,
             seed: int) -> None:
    training = training_module(game_name)
    per_task = 10
    tasks = [(game_name, seed * 1_000_003 + index, min(per_task, games - start), random_plies, depth)
             for index, start in enumerate(range(0, games, per_task))]
    rows, finals = [], []
    started = time.perf_counter()
    done = 0
    for played in _map(_selfplay_games, tasks, workers, use_ray):
        for game_rows, movers, margin in played:
            rows.extend(game_rows)
            finals.extend(margin if mover == 0 else -margin for mover in movers)
        done += len(played)
        elapsed = time.perf_counter() - started
        print(f"self-play: {done}/{games} games, {len(rows)} positions, {elapsed:.0f} s, "
              f"{len(rows) / elapsed * 3600:,.0f} positions an hour", file=sys.stderr, flush=True)
    finals_array = np.array(finals, dtype=np.float64)
    data = distinct(training, np.array(rows, dtype=np.uint64).reshape(-1, training.BOARDS),
                    {"real": finals_array, "theory": np.full(len(finals), np.nan)})
    save(out / f"selfplay-{seed}.npz", data)
    print(f"{len(data['boards'])} distinct positions -> {out / f'selfplay-{seed}.npz'}", file=sys.stderr)


# ---- summary --------------------------------------------------------------------------------


def summary(out: Path) -> None:
    for path in sorted(out.glob("*.npz")):
        data = load(path)
        exact = exact_labels(path, len(data["boards"]))
        searched = ~np.isnan(searched_labels(path, len(data["boards"])))
        print(f"{path.name}: {len(data['boards'])} distinct positions, {int(data['count'].sum())} with repeats, "
              f"{int((exact != UNSOLVED).sum())} solved exactly, {int(searched.sum())} searched deep")
        print("  empties  positions   solved  searched")
        for empties in range(int(data["empties"].max()), -1, -1):
            here = data["empties"] == empties
            if here.any():
                print(f"  {empties:7d}  {int(here.sum()):9d}  {int((exact[here] != UNSOLVED).sum()):7d}"
                      f"  {int(searched[here].sum()):8d}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help: str) -> argparse.ArgumentParser:
        made = commands.add_parser(name, help=help)
        made.add_argument("game")
        made.add_argument("--out", type=Path, help="the data folder (default .cache/training/GAME)")
        return made

    positions = command("positions", "the distinct positions of the expert games")
    positions.add_argument("folder", type=Path, help="the folder of the expert games' files")
    positions.add_argument("--games", type=int, help="only the first N games")
    solve = command("solve", "exact margins of the positions near the end")
    solve.add_argument("--max-empties", type=int, default=18)
    solve.add_argument("--limit", type=int, help="at most N positions a file")
    solve.add_argument("--deadline", type=float, help="stop after this many seconds")
    play = command("selfplay", "positions of the engine's own games")
    play.add_argument("--games", type=int, default=200)
    play.add_argument("--random-plies", type=int, default=10)
    play.add_argument("--depth", type=int, default=4)
    play.add_argument("--seed", type=int, default=1)
    deep = command("search", "deep-search scores of positions of the middle game")
    deep.add_argument("--depth", type=int, default=10)
    deep.add_argument("--min-empties", type=int, default=25)
    deep.add_argument("--max-empties", type=int, default=44)
    deep.add_argument("--per-empties", type=int, default=5000, help="at most N positions a count of empty squares")
    deep.add_argument("--deadline", type=float, help="stop after this many seconds")
    deep.add_argument("--seed", type=int, default=1)
    cut = command("subset", "the boards of the positions near the end, to solve elsewhere")
    cut.add_argument("to", type=Path)
    cut.add_argument("--max-empties", type=int, default=17)
    command("merge", "exact margins solved elsewhere (a subset's)").add_argument("source", type=Path)
    command("summary", "positions by empty squares")
    for made in (solve, play, deep):
        made.add_argument("--workers", type=int, default=os.cpu_count() or 1)
        made.add_argument("--ray", action="store_true", help="spread the work with ray")
    args = parser.parse_args(argv)
    out = args.out or default_folder(args.game)
    if args.command == "positions":
        expert(args.game, args.folder, out, args.games)
    elif args.command == "solve":
        solve_files(args.game, out, args.max_empties, args.workers, args.ray, args.limit, args.deadline)
    elif args.command == "search":
        search_files(args.game, out, args.depth, args.min_empties, args.max_empties, args.per_empties, args.workers,
                     args.ray, args.deadline, args.seed)
    elif args.command == "selfplay":
        selfplay(args.game, out, args.games, args.random_plies, args.depth, args.workers, args.ray, args.seed)
    elif args.command == "subset":
        subset(args.game, out, args.max_empties, args.to)
    elif args.command == "merge":
        merge(out, args.source)
    else:
        summary(out)


if __name__ == "__main__":
    main()
