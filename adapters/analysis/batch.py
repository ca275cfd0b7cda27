"""`engine-analyse` over many game records at once, resumably, with a summary.

The records are the files named, the `*.json` files of the folders named, and the files
a glob pattern matches (quoted, so that the shell leaves it), each once, in that order;
`engine-analyse`'s own outputs among them (`*-analysis.json`, `*-analysis.sgf`,
`*-analysis.png`, `*-analysis.svg`, `*-analysis.partial.jsonl`, `analysis-summary.json`, replay pages
`*.html`) are left out. Each
record's analysis goes where the replay page looks for it: `RECORD-analysis.json` beside
the record, or in the folder `--out`, with the annotated record `RECORD-analysis.sgf`. Every write is atomic (a file is whole or absent),
and a record whose analysis is there already, of the same moves with the same limit,
`--top` and thresholds, is not analysed again. Each position's analysis of a record not
done yet is kept as it comes in `RECORD-analysis.partial.jsonl` (beside the analysis, with
the moves and settings first), removed once the analysis is written: so a run stopped
(Ctrl-C) goes on where it stopped when run again, position by position.

The positions of all the records to analyse are jobs of one run of workers (see
`adapters.analysis.analyse.analyse_games`): the workers stay busy to the last position.
A record that cannot be read, or whose analysis the engine fails, is reported (by its
name, on stderr) and left out; the others go on, and the exit status is 1. The folders
the analyses and the summary go to are made where missing and checked before the
analysis starts; an output that cannot be written stops the run, named in words (see
`adapters.analysis.outputs`), with exit status 2.

Beside each arena record's analysis goes its replay page (`RECORD.html`, as `engine-arena
replay RECORD.json` writes it, with the analysis), written with the analysis, or when it
is missing. The summary (see `adapters.analysis.summary`) covers every record analysed,
now or before: as text on stdout, and as JSON in `analysis-summary.json` (in `--out`, or
in the folder the records have in common), with the settings and each record's outcome.
"""

from __future__ import annotations

import contextlib
import glob
import json
import math
import os
import re
import signal
import sys
import threading
from pathlib import Path
from typing import Sequence

import attrs

from adapters.analysis.analyse import PLY_FIELDS, EngineSpec, analyse_games, failure_text, mark, report
from adapters.analysis.annotated import write_annotated
from adapters.analysis.gamefile import Game, read_game
from adapters.analysis.outputs import CannotWrite, check_folder, writing
from adapters.analysis.picture import plot
from adapters.analysis.summary import Analysed, summarise, summary_text
from adapters.view.replay import replay_page
from games import find_game
from games.files import atomic_file
from protocol.client import Limit

#: The summary's file name.
SUMMARY_NAME = "analysis-summary.json"
#: What a glob pattern has that a file name usually has not.
GLOB_CHARACTERS = frozenset("*?[")
#: The exit status of a run stopped by Ctrl-C.
INTERRUPTED = 130
#: The end of the name of the file of a record's positions analysed so far.
PARTIAL_SUFFIX = "-analysis.partial.jsonl"
#: What an analysis says of the game and the settings it was made with.
SETTINGS_KEYS = ("game", "params", "start", "limit", "top", "thresholds")
#: A score as an analysis writes it (`cp N` or `mate N`).
SCORE_TEXT = re.compile(r"(cp|mate) -?[0-9]+")


@attrs.frozen
class Settings:
    """How a batch is analysed: the search (`limit`, `top`), the workers (`jobs` engine
    sessions from `engine`, or Ray tasks on the cluster `ray`), the progress bar, the
    game of CodinGame replays (`game`, None: the one whose rules read each), the
    output folder (`out`, None: beside each record), the summary's path (None: see the
    module docstring), how many worst moves it lists, and whether each record also gets
    its pictures."""

    limit: Limit
    top: int
    jobs: int
    engine: EngineSpec
    ray: str | None = None
    progress: bool = False
    game: str | None = None
    out: Path | None = None
    summary: Path | None = None
    worst: int = 10
    pictures: bool = False


def is_batch(inputs: Sequence[str]) -> bool:
    """Whether the inputs ask for a batch: several of them, a folder, or a glob pattern
    that is not itself a file's name."""
    if len(inputs) != 1:
        return True
    path = Path(inputs[0])
    return path.is_dir() or (not path.is_file() and bool(GLOB_CHARACTERS & set(inputs[0])))


def is_output(path: Path) -> bool:
    """Whether `path` is one of `engine-analyse`'s outputs rather than a record."""
    return (path.name == SUMMARY_NAME or path.suffix == ".html"
            or path.name.endswith(("-analysis.json", "-analysis.sgf", "-analysis.png", "-analysis.svg",
                                   PARTIAL_SUFFIX)))


def record_paths(inputs: Sequence[str]) -> tuple[list[Path], list[tuple[str, str]]]:
    """The records the inputs name (see the module docstring), and each input that names
    none with what is wrong with it."""
    found: dict[Path, Path] = {}
    problems = []
    for text in inputs:
        path = Path(text)
        if path.is_dir():
            matches = sorted(path.glob("*.json"))
        elif path.is_file():
            matches = [path]
        elif GLOB_CHARACTERS & set(text):
            matches = sorted(Path(name) for name in glob.glob(text))
        else:
            problems.append((text, "no such file or folder"))
            continue
        matches = [match for match in matches if match.is_file() and not is_output(match)]
        if not matches:
            problems.append((text, "no game record there"))
        for match in matches:
            found.setdefault(match.resolve(), match)
    return list(found.values()), problems


def analysis_path(record: Path, out: Path | None) -> Path:
    """Where the analysis of `record` goes: `RECORD-analysis.json`, beside it or in `out`."""
    return (out or record.parent) / f"{record.stem}-analysis.json"


def page_path(record: Path, out: Path | None) -> Path:
    """Where the replay page of `record` goes: beside its analysis, `RECORD.html`."""
    return (out or record.parent) / f"{record.stem}.html"


def _settings(game: Game, limit: Limit, top: int) -> dict:
    """What an analysis of `game` with `limit` and `top` says of them, as its file has
    it (lists for tuples)."""
    wanted = json.loads(json.dumps(report(game, limit, top, [])))
    return {key: wanted[key] for key in SETTINGS_KEYS}


def up_to_date(path: Path, game: Game, limit: Limit, top: int) -> dict | None:
    """The analysis at `path` if it is one of `game`'s moves made with `limit`, `top`
    and the present thresholds, else None (none there, unreadable, or another)."""
    try:
        existing = _json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    wanted = _settings(game, limit, top)
    if not isinstance(existing, dict) or not isinstance(existing.get("plies"), list) or any(
            existing.get(key) != wanted[key] for key in SETTINGS_KEYS):
        return None
    plies = existing["plies"]
    if len(plies) != len(game.plies) or not all(
            isinstance(ply, dict) and ply.get("ply") == index + 1
            and is_analysis_of({key: value for key, value in ply.items() if key != "ply"}, game, index)
            for index, ply in enumerate(plies)):
        return None
    return existing


def is_analysis_of(analysis: object, game: Game, index: int) -> bool:
    """Whether `analysis` is the analysis of the position before move `index` of `game`
    (its player, board and move) with every field (`PLY_FIELDS`) of the type and shape
    `analyse_ply` gives it: what an analysis read back from a file must be to be taken."""
    if not _well_formed(analysis):
        return False
    position, played = game.plies[index]
    return (analysis["played"] == played and analysis["player"] == position.to_move
            and analysis["board"] == find_game(game.name).format_board(position))


def _well_formed(analysis: object) -> bool:
    return (isinstance(analysis, dict) and set(analysis) == PLY_FIELDS and _count(analysis["player"])
            and all(isinstance(analysis[key], str) for key in ("board", "played", "best"))
            and _count(analysis["depth"]) and isinstance(analysis["top"], list) and bool(analysis["top"])
            and all(_line(line) and line["depth"] == analysis["depth"] for line in analysis["top"])
            and _score(analysis["played_score"]) and _score(analysis["best_score"])
            and _wdl(analysis["played_wdl"]) and _count(analysis["loss"])
            and (analysis["points_lost"] is None or _points(analysis["points_lost"]))
            and analysis["mark"] == mark(analysis["points_lost"]))


def _line(line: object) -> bool:
    return (isinstance(line, dict) and set(line) == {"move", "score", "wdl", "pv", "depth"}
            and isinstance(line["move"], str)
            and _score(line["score"]) and _wdl(line["wdl"])
            and isinstance(line["pv"], list) and all(isinstance(move, str) for move in line["pv"]))


def _count(value: object) -> bool:
    return type(value) is int and value >= 0


def _points(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and 0 <= value <= 1


def _score(value: object) -> bool:
    return isinstance(value, str) and SCORE_TEXT.fullmatch(value) is not None


def _wdl(value: object) -> bool:
    return value is None or (isinstance(value, list) and len(value) == 3 and all(map(_count, value)))


def partial_path(analysis: Path) -> Path:
    """Where the positions of the analysis to be written at `analysis` are kept."""
    return analysis.with_name(analysis.name.removesuffix("-analysis.json") + PARTIAL_SUFFIX)


class Partial:
    """The positions of one record's analysis made so far, kept in a file of JSON lines:
    first the game's moves and the settings, then `{"index": I, "analysis": A}` a
    position. A line that is not such an entry (cut short as the run was stopped while
    writing it, or with a field not of its type, see `is_analysis_of`) ends the file's
    reading; a file of other moves or settings is started afresh. Its writes raise
    CannotWrite naming it."""

    def __init__(self, path: Path, game: Game, limit: Limit, top: int):
        self.path = path
        self.head = {"moves": [move for _, move in game.plies], **_settings(game, limit, top)}
        #: The analyses the file held, by the index of their position.
        self.known: dict[int, dict] = {}
        self._entries: list[dict] = []  # what the file holds after its head
        self._whole = False  # whether the file is just the head and the entries
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, ValueError):
            return
        if not lines or _json(lines[0]) != self.head:
            return
        self._whole = True
        for line in lines[1:]:
            entry = _json(line)
            index = entry.get("index") if isinstance(entry, dict) else None
            analysis = entry.get("analysis") if isinstance(entry, dict) else None
            if not (_count(index) and index < len(game.plies) and is_analysis_of(analysis, game, index)):
                self._whole = False  # written again whole at the next position
                break
            self.known[index] = analysis
            self._entries.append(entry)

    def add(self, index: int, analysis: dict) -> None:
        """Keep the analysis of the position `index` (Ctrl-C waits for the line)."""
        entry = {"index": index, "analysis": analysis}
        self._entries.append(entry)
        lines = [entry] if self._whole else [self.head, *self._entries]
        with _holding_ctrl_c(), writing(self.path), open(self.path, "a" if self._whole else "w",
                                                         encoding="utf-8") as out:
            out.write("".join(json.dumps(line) + "\n" for line in lines))
        self._whole = True

    @property
    def kept(self) -> int:
        """How many positions' analyses the file holds."""
        return len(self._entries) if self._whole else 0

    def remove(self) -> None:
        with writing(self.path):
            self.path.unlink(missing_ok=True)


def _json(text: str) -> object:
    """The JSON value `text` holds, None where it holds none (or one nested too deep)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def write_json(path: Path, document: dict) -> None:
    """Write `document` to `path` whole or not at all; raises CannotWrite naming it."""
    with writing(path), atomic_file(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(document, indent=1) + "\n")


def write_page(record: Path, analysis: dict, page: Path) -> bool:
    """Write the replay page of `record` with `analysis` to `page`; False (nothing
    written) where `record` is no arena record or the page cannot draw its game. Raises
    CannotWrite naming `page`."""
    try:
        document = json.loads(record.read_text(encoding="utf-8"))
        if not isinstance(document, dict) or not {"seats", "result", "moves"} <= document.keys():
            return False
        text = replay_page(document, analysis)
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return False
    with writing(page), atomic_file(page, "w", encoding="utf-8") as out:
        out.write(text)
    return True


@contextlib.contextmanager
def _holding_ctrl_c():
    """Hold a SIGINT (Ctrl-C) that arrives in the block until its end, then deliver it
    to the handler that was there. Outside the main thread, where no handler can be set,
    the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: held.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        signal.raise_signal(signal.SIGINT)


def _say(text: str) -> None:
    print(f"engine-analyse: {text}", file=sys.stderr)


def run(inputs: Sequence[str], settings: Settings) -> int:
    """Analyse the records `inputs` name (see the module docstring) and print the
    summary. Returns the exit status: 0, 1 when some record or input failed, 2 when
    nothing could be analysed (no record, two records for one output, no engine) or an
    output cannot be written (every folder the analyses go to, and the summary's, is
    checked before the analysis starts), INTERRUPTED after Ctrl-C."""
    try:
        return _run(inputs, settings)
    except CannotWrite as error:
        _say(str(error))
        return 2


def _run(inputs: Sequence[str], settings: Settings) -> int:
    paths, problems = record_paths(inputs)
    for text, problem in problems:
        _say(f"{text}: {problem}")
    if not paths:
        _say("no game record to analyse")
        return 2
    outputs = {path: analysis_path(path, settings.out) for path in paths}
    clashes = {}
    for path, output in outputs.items():
        if output in clashes:
            _say(f"{clashes[output]} and {path} would both write {output}: give them different --out folders")
            return 2
        clashes[output] = path
    status: dict[Path, dict] = {}
    reports: dict[Path, dict] = {}
    todo: list[tuple[Path, Game]] = []
    for path in paths:
        try:
            game = read_game(path, settings.game)
        except (OSError, ValueError) as error:
            text = str(error) if str(path) in str(error) else f"{path}: {error}"
            _say(f"{text}: skipped")
            status[path] = {"status": "failed", "error": text}
            continue
        if game.stopped:
            _say(f"{path}: the record stops after {len(game.plies)} moves: {game.stopped}")
        existing = up_to_date(outputs[path], game, settings.limit, settings.top)
        if existing is None:
            todo.append((path, game))
        else:
            reports[path] = existing
            status[path] = {"status": "already analysed"}
            left = partial_path(outputs[path])  # by a run stopped as it saved
            with writing(left):
                left.unlink(missing_ok=True)
            if not page_path(path, settings.out).exists():
                write_page(path, existing, page_path(path, settings.out))
    where = settings.summary or (settings.out or Path(os.path.commonpath([path.resolve().parent for path in paths]))
                                 ) / SUMMARY_NAME
    for folder in sorted({outputs[path].parent for path, _ in todo} | {where.parent}):
        check_folder(folder)
    readable = len(reports) + len(todo)
    if reports:
        _say(f"{len(reports)} of {readable} records already analysed with these settings")
    partials = [Partial(partial_path(outputs[path]), game, settings.limit, settings.top) for path, game in todo]
    if any(partial.known for partial in partials):
        _say(f"going on with {sum(len(partial.known) for partial in partials)} positions analysed before,"
             f" of {sum(bool(partial.known) for partial in partials)} records")
    try:
        for number, outcome in analyse_games([game for _, game in todo], settings.limit, settings.top,
                                             settings.jobs, settings.engine, settings.ray, settings.progress,
                                             [partial.known for partial in partials],
                                             lambda number, index, analysis: partials[number].add(index, analysis)):
            path, game = todo[number]
            if isinstance(outcome, str):
                _say(f"{path}: {outcome}: skipped")
                status[path] = {"status": "failed", "error": outcome}
                continue
            analysis = report(game, settings.limit, settings.top, outcome)
            with _holding_ctrl_c():  # saved and counted together, for the Ctrl-C message
                write_json(outputs[path], analysis)
                reports[path] = analysis
                status[path] = {"status": "analysed"}
                partials[number].remove()
            # A page missing after Ctrl-C is written from the saved analysis next run.
            write_page(path, analysis, page_path(path, settings.out))
            write_annotated(outputs[path].with_suffix(".sgf"), game, attrs.asdict(settings.limit), outcome)
            if settings.pictures:
                plot(game, outcome, outputs[path].with_suffix(""))
    except KeyboardInterrupt:
        kept = sum(partial.kept for (path, _), partial in zip(todo, partials) if path not in reports)
        _say(f"interrupted: {len(reports)} of {readable} records analysed (now or before), and {kept} positions"
             " of the others; the same command goes on from there")
        return INTERRUPTED
    except OSError as error:
        _say(failure_text(error))
        return 2
    pages = {path: page_path(path, settings.out) for path in reports}
    summary = summarise([Analysed(reports[path], str(path),
                                  pages[path].resolve().as_uri() if pages[path].exists() else None)
                         for path in paths if path in reports], settings.worst)
    records = [{"record": text, "status": "failed", "error": problem, "analysis": None, "page": None}
               for text, problem in problems] + [
        {"record": str(path), **status[path],
         "analysis": str(outputs[path]) if path in reports else None,
         "page": str(pages[path]) if path in reports and pages[path].exists() else None}
        for path in paths]
    print(summary_text(summary))
    write_json(where, {"limit": attrs.asdict(settings.limit), "top": settings.top, "records": records, **summary})
    print(f"\nsummary: {where}")
    failed = sum(record["status"] == "failed" for record in records)
    if failed:
        _say(f"{failed} of {len(records)} records or inputs failed")
    return 1 if failed else 0
