"""engine-gui's studies (adapters/gui/studies.py): a study the page sends is kept as one
SGF collection and comes back the same, in every game; it is renamed, exported,
imported and deleted; what a stranger sends (a path for an id, too many chapters, too
many bytes, a broken file in the folder) is refused or passed over, never written."""

from __future__ import annotations

import os
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.gui import studies as module
from adapters.gui.studies import Studies, answer, chapter_message, study_records
from adapters.gui.trees import tree_message
from records.sgf import read_sgf
from tests.conftest import random_game
from tests.records.test_records import records

GAMES = ("clobber", "othello", "loa", "isolation", "abalone")


def chapter(game: str, name: str, seed: int = 1, plies: int = 6) -> dict:
    """A chapter as the page sends it: a main line of random moves of `game`."""
    from records.tree import grown

    record = grown(game, random_game(game, plies, seed=seed))
    record.root.children[0].comment = f"the first move of {name}"
    record.root.children[0].glyphs = [5]
    return {"name": name, "game": game, "start": None, "tree": tree_message(record), "headers": {"EV": "a test"}}


def ask(studies: Studies, **request) -> dict[str, dict]:
    """The messages answering a request, by type."""
    return {message["type"]: message for message in answer(studies, request, 7)}


def test_a_study_of_every_game_is_kept_listed_opened_renamed_exported_and_deleted(tmp_path) -> None:
    studies = Studies(tmp_path / "studies")
    chapters = [chapter(game, f"{game} ideas", seed) for seed, game in enumerate(GAMES)]
    saved = ask(studies, action="save", id=None, name="Openings", chapters=chapters)["study_saved"]
    assert saved["name"] == "Openings"
    (listed,) = ask(studies, action="list")["studies"]["studies"]
    assert (listed["id"], listed["name"], listed["chapters"], listed["games"]) == (
        saved["id"], "Openings", [f"{game} ideas" for game in GAMES], list(GAMES))
    opened = ask(studies, action="open", id=saved["id"])["study"]
    assert [item["name"] for item in opened["chapters"]] == [item["name"] for item in chapters]
    assert [item["tree"] for item in opened["chapters"]] == [item["tree"] for item in chapters]
    assert opened["chapters"][0]["headers"] == {"EV": "a test"}
    ask(studies, action="save", id=saved["id"], name="My openings", chapters=chapters)  # renamed
    exported = ask(studies, action="export", id=saved["id"])["export"]
    assert exported["name"] == "My openings"
    found = read_sgf(exported["text"], "export")
    assert [record.headers["SN"] for record in found] == ["My openings"] * len(GAMES)
    assert [record.headers["GN"] for record in found] == [f"{game} ideas" for game in GAMES]
    # Saved again under its id, it replaces itself: still one study.
    ask(studies, action="save", id=saved["id"], name="My openings", chapters=chapters[:2])
    (listed,) = ask(studies, action="list")["studies"]["studies"]
    assert listed["chapters"] == ["clobber ideas", "othello ideas"]
    assert ask(studies, action="delete", id=saved["id"])["studies"]["studies"] == []


def test_an_exported_study_imports_as_a_new_one_with_the_same_chapters(tmp_path) -> None:
    studies = Studies(tmp_path)
    first = ask(studies, action="save", name="Endgames",
                chapters=[chapter("othello", "one"), chapter("abalone", "two", 3)])["study_saved"]["id"]
    text = ask(studies, action="export", id=first)["export"]["text"]
    imported = ask(studies, action="import", text=text, name="Endgames.sgf")["study"]
    assert imported["id"] != first and imported["name"] == "Endgames"
    original = ask(studies, action="open", id=first)["study"]["chapters"]
    assert imported["chapters"] == original
    # Any SGF collection imports: its chapters take "Chapter N" and the file's name.
    plain = read_sgf(text, "x")
    for record in plain:
        del record.headers["SN"], record.headers["GN"]
    from records.sgf import write_sgf

    made = ask(studies, action="import", text=write_sgf(plain), name="games.sgf")["study"]
    assert made["name"] == "games" and [item["name"] for item in made["chapters"]] == ["Chapter 1", "Chapter 2"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                   HealthCheck.function_scoped_fixture])
@given(st.lists(records(), min_size=1, max_size=3), st.text(min_size=1, max_size=30).filter(
    lambda name: name.strip() and name.isprintable()))
def test_any_tree_of_any_game_comes_back_from_a_study(tmp_path, found, name) -> None:
    studies = Studies(tmp_path / "hypothesis")
    chapters = [{"name": f"c{index}", "game": record.game, "start": record.start, "tree": tree_message(record),
                 "headers": record.headers} for index, record in enumerate(found)]
    study = studies.write(None, name, study_records(name, chapters))
    try:
        read_name, kept = studies.read(study)
        assert read_name == name.strip()
        assert [chapter_message(record)["tree"] for record in kept] == [item["tree"] for item in chapters]
    finally:
        studies.delete(study)


@pytest.mark.parametrize("study", ["../../etc/passwd", "0123", "0123456789abcdeg", None, 5, "ABCDEF0123456789"])
def test_an_id_that_is_no_studys_names_no_file(tmp_path, study) -> None:
    studies = Studies(tmp_path)
    for action in ("open", "export", "delete"):
        with pytest.raises(ValueError, match="no such study"):
            answer(studies, {"action": action, "id": study, "name": "x"}, 1)


def test_what_a_stranger_sends_is_refused_and_nothing_is_written(tmp_path, monkeypatch) -> None:
    studies = Studies(tmp_path / "s")
    refused = [
        ({"action": "drop"}, "action is one of"),
        ({"action": "save", "name": "", "chapters": [chapter("clobber", "a")]}, "name is one line"),
        ({"action": "save", "name": "x\ny", "chapters": [chapter("clobber", "a")]}, "name is one line"),
        ({"action": "save", "name": "x", "chapters": []}, "1 to 64 chapters"),
        ({"action": "save", "name": "x", "chapters": [chapter("clobber", "a")] * 65}, "1 to 64 chapters"),
        ({"action": "save", "name": "x", "chapters": [{**chapter("clobber", "a"), "game": "chess"}]}, "chapter 1"),
        ({"action": "save", "name": "x", "chapters": [{**chapter("othello", "a"),
                                                       "tree": {"children": [{"move": "a1", "children": []}]}}]},
         "chapter 1: .*a1"),
        ({"action": "import", "text": "(;GE[chess])"}, "chess"),
        ({"action": "import", "text": 5}, "no SGF text"),
    ]
    for request, words in refused:
        with pytest.raises(ValueError, match=words):
            answer(studies, request, 1)
    monkeypatch.setattr(module, "MAX_STUDY_BYTES", 2000)
    with pytest.raises(ValueError, match="more than the 2000 of a study"):
        answer(studies, {"action": "save", "name": "big", "chapters": [chapter("othello", "a", plies=40)] * 8}, 1)
    monkeypatch.setattr(module, "MAX_STUDIES", 2)
    monkeypatch.setattr(module, "MAX_STUDY_BYTES", 4 << 20)
    for _ in range(2):
        answer(studies, {"action": "save", "name": "small", "chapters": [chapter("clobber", "a")]}, 1)
    with pytest.raises(ValueError, match="2 studies are kept"):
        answer(studies, {"action": "save", "name": "third", "chapters": [chapter("clobber", "a")]}, 1)
    assert sorted(path.suffix for path in (tmp_path / "s").iterdir()) == [".sgf", ".sgf"]


def test_the_folder_is_the_users_alone_and_a_broken_file_in_it_is_passed_over(tmp_path) -> None:
    folder = tmp_path / "studies"
    studies = Studies(folder)
    study = studies.write(None, "kept", study_records("kept", [chapter("loa", "a")]))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / f"{study}.sgf").stat().st_mode) == 0o600
    (folder / "00000000000000aa.sgf").write_text("(;GE[othello];B[z9]")
    (folder / "notes.sgf").write_text("not a study")
    assert [summary.name for summary in studies.list()] == ["kept"]
    with pytest.raises(ValueError, match="00000000000000aa.sgf"):
        studies.read("00000000000000aa")
    assert not [path for path in os.listdir(folder) if path.endswith(".part")]


def test_a_study_is_answered_over_the_websocket_while_an_analysis_runs(tmp_path) -> None:
    """Through a real engine-gui: `study` needs no engine, so it is answered while an
    analysis runs, and a study another tab saved is in this tab's list."""
    from tests.adapters.test_gui_server import http_session, receive, running_gui, tab
    from tests.conftest import run

    async def check(gui) -> None:
        async with http_session() as http, tab(http, gui) as first, tab(http, gui) as second:
            await first.send_json({"op": "analyse", "seq": 1, "game": "othello", "moves": [], "multipv": 1})
            while (await receive(first))["type"] != "lines":
                pass
            await first.send_json({"op": "study", "seq": "s", "action": "save", "name": "Live",
                                   "chapters": [chapter("othello", "a")]})
            saved = await receive_study(first, "study_saved")
            await second.send_json({"op": "study", "seq": "s", "action": "list"})
            listed = await receive_study(second, "studies")
            assert [item["id"] for item in listed["studies"]] == [saved["id"]]
            await second.send_json({"op": "study", "seq": "s", "action": "open", "id": "f" * 16})
            error = await receive_study(second, "error")
            assert error["text"].startswith("Study: no such study")
            await first.send_json({"op": "stop"})

    async def receive_study(ws, kind: str) -> dict:
        while True:
            message = await receive(ws)
            if message.get("seq") == "s" and message["type"] in (kind, "error", "study_saved", "studies"):
                if message["type"] == kind:
                    return message
                assert message["type"] != "error", message

    with running_gui(tmp_path / "stderr.log", "--studies", str(tmp_path / "studies")) as gui:
        run(check(gui))
