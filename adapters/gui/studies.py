"""Studies: named collections of games (chapters), each a tree with its variations,
comments, glyphs and shapes, kept by engine-gui in the user's data folder.

A study is one SGF collection (`records.sgf`), one game tree a chapter, in a file of
its own, `<id>.sgf`, where `id` is STUDY_ID (16 hexadecimal digits, chosen here: no
name the page sends becomes a path). Each chapter's root names the chapter with SGF's
`GN[name]` and the study with the private `SN[name]` (docs/records.md), so the file is
the study's export as it is, and importing any SGF collection makes a study of it.

A page is a stranger: every study it sends is read by the rules (`record_of_tree`),
written whole or not at all (a temporary file in the folder, flushed, then renamed
over the old one), at most MAX_STUDY_BYTES a study, MAX_CHAPTERS chapters, MAX_STUDIES
studies and MAX_TOTAL_BYTES in all; names are at most MAX_NAME characters of one
line. The folder is the user's alone (0700, files 0600).
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
import threading
from pathlib import Path

import attrs
import platformdirs

from adapters.gui.trees import leave, players_of, record_of_tree, tree_message
from records.sgf import read_sgf, write_sgf
from records.tree import Record

MAX_STUDY_BYTES = 4 << 20
MAX_CHAPTERS = 64
MAX_STUDIES = 256
MAX_TOTAL_BYTES = 256 << 20
MAX_NAME = 200
STUDY_ID = re.compile(r"[0-9a-f]{16}")
#: The private root property that names the study a chapter is of.
STUDY_NAME = "SN"
#: The standard root property that names a chapter (SGF's game name).
CHAPTER_NAME = "GN"


def default_folder() -> Path:
    """Where studies are kept by default: the user's data folder (platformdirs)."""
    return Path(platformdirs.user_data_dir("engine", appauthor=False)) / "studies"


def checked_name(name: object, what: str) -> str:
    """`name` as a study's or a chapter's name; raises ValueError where it is none."""
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"a {what}'s name is one line of 1 to {MAX_NAME} printable characters")
    return name.strip()


@attrs.frozen
class Summary:
    """What the list of studies shows of one."""

    id: str
    name: str
    chapters: tuple[str, ...]
    games: tuple[str, ...]
    bytes: int
    modified: float

    def message(self) -> dict:
        return {"id": self.id, "name": self.name, "chapters": list(self.chapters), "games": list(self.games),
                "bytes": self.bytes, "modified": self.modified}


def chapter_message(record: Record) -> dict:
    """A chapter as the page holds it: its name, game, start, tree and headers."""
    headers = {name: value for name, value in record.headers.items() if name not in (STUDY_NAME, CHAPTER_NAME)}
    return {"name": record.headers.get(CHAPTER_NAME, ""), "game": record.game, "start": record.start,
            "tree": tree_message(record), "headers": headers, "players": players_of(record)}


def study_records(name: str, chapters: object) -> list[Record]:
    """The records of a study the page sends: `chapters`, each `{name, game, start,
    tree, headers}`, every move checked by the rules, each named by its chapter's name
    (`Studies.write` names the study in them); raises ValueError saying which chapter
    is wrong and how."""
    name = checked_name(name, "study")
    if not isinstance(chapters, list) or not 1 <= len(chapters) <= MAX_CHAPTERS:
        raise ValueError(f"a study has 1 to {MAX_CHAPTERS} chapters")
    records = []
    for number, chapter in enumerate(chapters, 1):
        if not isinstance(chapter, dict):
            raise ValueError(f"chapter {number} is no object")
        try:
            title = checked_name(chapter.get("name"), "chapter")
            record = record_of_tree(chapter.get("game"), chapter.get("start"), chapter.get("tree"),
                                    chapter.get("headers"))
        except (ValueError, KeyError) as error:
            raise ValueError(f"chapter {number}: {error}") from None
        record.headers[CHAPTER_NAME] = title
        records.append(record)
    return records


def named(records: list[Record], name: str) -> list[Record]:
    """`records` as the chapters of study `name`: each keeps its own chapter name
    (`GN`), or takes "Chapter N"."""
    for number, record in enumerate(records, 1):
        record.headers[CHAPTER_NAME] = record.headers.get(CHAPTER_NAME) or f"Chapter {number}"
        record.headers[STUDY_NAME] = name
    return records


class Studies:
    """The studies kept in `folder` (see the module docstring). Its methods do file
    I/O: call them off the event loop. One lock orders the writes of all the tabs;
    a list reads only the files changed since it last read them."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder if folder is not None else default_folder()
        self._lock = threading.Lock()
        #: Each file's (mtime_ns, size) and summary, as last read.
        self._known: dict[str, tuple[tuple[int, int], Summary]] = {}

    def _path(self, study: object) -> Path:
        if not isinstance(study, str) or not STUDY_ID.fullmatch(study):
            raise ValueError("no such study: a study's id is 16 hexadecimal digits")
        return self.folder / f"{study}.sgf"

    def _ready(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)

    def list(self) -> list[Summary]:
        """The studies, most recently changed first; a file that is no study is left out."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in self.folder.glob("*.sgf"):
            study = path.stem
            if not STUDY_ID.fullmatch(study):
                continue
            try:
                stat = path.stat()
                stamp = (stat.st_mtime_ns, stat.st_size)
                if study not in self._known or self._known[study][0] != stamp:
                    if stat.st_size > MAX_STUDY_BYTES:
                        continue
                    name, records = self._read(path)
                    self._known[study] = (stamp, Summary(
                        study, name, tuple(record.headers.get(CHAPTER_NAME, "") for record in records),
                        tuple(record.game for record in records), stat.st_size, stat.st_mtime))
                found.append(self._known[study][1])
            except (OSError, ValueError):
                continue  # gone meanwhile, or broken: not offered
        return sorted(found, key=lambda summary: (-summary.modified, summary.name))[:MAX_STUDIES]

    def _read(self, path: Path) -> tuple[str, list[Record]]:
        with path.open("rb") as file:
            data = file.read(MAX_STUDY_BYTES + 1)
        if len(data) > MAX_STUDY_BYTES:
            raise ValueError(f"{path.name} holds more than {MAX_STUDY_BYTES} bytes")
        records = read_sgf(data.decode("utf-8", errors="replace"), path.name, leave)
        if not records:
            raise ValueError(f"{path.name} holds no game")
        return records[0].headers.get(STUDY_NAME) or path.stem, records

    def read(self, study: str) -> tuple[str, list[Record]]:
        """The name and the chapters of `study`; raises ValueError where there is none,
        or where its file is broken (saying where)."""
        path = self._path(study)
        try:
            return self._read(path)
        except FileNotFoundError:
            raise ValueError("no such study: it was deleted") from None

    def text(self, study: str) -> tuple[str, str]:
        """The name of `study` and its SGF text (its export)."""
        path = self._path(study)
        name, _ = self.read(study)
        return name, path.read_text(encoding="utf-8")

    def write(self, study: str | None, name: str, records: list[Record]) -> str:
        """Keep `records` as the chapters of study `name` (a new study where `study` is
        None), whole or not at all; returns its id. Raises ValueError past a bound."""
        text = write_sgf(named(records, checked_name(name, "study"))).encode()
        if len(text) > MAX_STUDY_BYTES:
            raise ValueError(f"the study takes {len(text)} bytes as SGF, more than the {MAX_STUDY_BYTES} of a study")
        if len(records) > MAX_CHAPTERS:
            raise ValueError(f"a study has at most {MAX_CHAPTERS} chapters")
        with self._lock:
            self._ready()
            paths = [path for path in self.folder.glob("*.sgf") if STUDY_ID.fullmatch(path.stem)]
            if study is None:
                if len(paths) >= MAX_STUDIES:
                    raise ValueError(f"{len(paths)} studies are kept, the most there may be: delete one first")
                study = secrets.token_hex(8)
            path = self._path(study)
            others = sum(item.stat().st_size for item in paths if item != path and item.exists())
            if others + len(text) > MAX_TOTAL_BYTES:
                raise ValueError(f"the studies would take more than {MAX_TOTAL_BYTES >> 20} MiB: delete some first")
            self._replace(path, text)
        return study

    def _replace(self, path: Path, data: bytes) -> None:
        handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".part")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.chmod(temporary, 0o600)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def delete(self, study: str) -> None:
        """Delete `study`; raises ValueError where there is none."""
        with self._lock:
            try:
                self._path(study).unlink()
            except FileNotFoundError:
                raise ValueError("no such study: it was deleted") from None
        self._known.pop(study, None)

    def import_text(self, text: str, where: str) -> str:
        """A new study of the SGF collection `text` (from the file `where`), named by its
        first chapter's `SN` or the file's name; returns its id."""
        if len(text.encode()) > MAX_STUDY_BYTES:
            raise ValueError(f"{where} holds more than {MAX_STUDY_BYTES} bytes, the most a study takes")
        records = read_sgf(text, where, leave)
        if not records:
            raise ValueError(f"{where} holds no game")
        name = records[0].headers.get(STUDY_NAME) or Path(where).stem or "Imported study"
        return self.write(None, checked_name(name[:MAX_NAME], "study"), records)


#: What a page may ask of the studies (`answer`).
ACTIONS = ("list", "open", "save", "delete", "import", "export")


def answer(studies: Studies, request: dict, seq: object) -> list[dict]:
    """The page's messages answering a `study` request (`action` one of ACTIONS; a
    study is renamed by saving it under its id with its new name):
    `studies` (the list), `study` (one opened, with its chapters), `study_saved` (its
    id and name) and `export` (its SGF text). Raises ValueError saying what is wrong."""
    action = request.get("action")
    if action not in ACTIONS:
        raise ValueError(f"a study request's action is one of {', '.join(ACTIONS)}")
    study = request.get("id")
    out: list[dict] = []
    if action == "open":
        name, records = studies.read(study)
        out.append({"type": "study", "seq": seq, "id": study, "name": name,
                    "chapters": [chapter_message(record) for record in records]})
    elif action == "save":
        name = checked_name(request.get("name"), "study")
        saved = studies.write(study, name, study_records(name, request.get("chapters")))
        out.append({"type": "study_saved", "seq": seq, "id": saved, "name": name})
    elif action == "delete":
        studies.delete(study)
    elif action == "import":
        text, where = request.get("text"), str(request.get("name") or "the study")[:MAX_NAME]
        if not isinstance(text, str):
            raise ValueError("no SGF text to import")
        made = studies.import_text(text, where)
        name, records = studies.read(made)
        out.append({"type": "study", "seq": seq, "id": made, "name": name,
                    "chapters": [chapter_message(record) for record in records]})
    elif action == "export":
        name, text = studies.text(study)
        out.append({"type": "export", "seq": seq, "format": "sgf", "text": text, "name": name})
    out.append({"type": "studies", "seq": seq, "studies": [summary.message() for summary in studies.list()]})
    return out
