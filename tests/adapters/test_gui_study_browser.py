"""Studies in engine-gui, in a real headless Chromium against a real `engine-gui`, by
clicking, in every game: a move annotated, an arrow drawn and a variation made are
kept in a study, which a reload keeps, another browser opens from the server's list,
exports as SGF and a third imports, finding the same tree, glyphs, comments and arrows."""

from __future__ import annotations

from pathlib import Path

import pytest

from records.sgf import read_sgf
from tests.adapters import test_gui_browser as pages
from tests.adapters.test_gui_browser import GAMES, WAIT_S, branch_at_ply_three, load_moves, open_page, state
from tests.conftest import random_game
from tools.gui_tour import right_drag

#: The running engine-gui and the browser, the fixtures of the other browser tests.
gui, browser = pages.gui, pages.browser

#: The page's state once the study shown is saved as it is.
SAVED = "window.gui.state.study && window.gui.state.study.id && !window.gui.state.study.dirty"


def shape_of_tree(tree: dict) -> tuple:
    """A page's tree as what it holds: each move's comment, glyphs, shapes and lines
    after it (a node may leave out what it does not have)."""
    return (tree["move"], tree.get("comment") or "", tuple(tree.get("glyphs") or ()),
            tuple((tuple(shape["cells"]), shape["colour"]) for shape in tree.get("shapes") or ()),
            tuple(shape_of_tree(child) for child in tree["children"]))


def open_study_panel(page) -> None:
    page.click("#study-panel summary")
    page.wait_for_function("document.getElementById('study-panel').open")


@pytest.mark.parametrize("game", GAMES)
def test_a_study_keeps_the_tree_and_its_notes_and_travels_as_sgf(browser, gui: str, tmp_path: Path,
                                                                  game: str) -> None:
    page = open_page(browser, gui, game)
    moves = random_game(game, 4, seed=11)
    load_moves(page, tmp_path, game, moves)
    page.click("#moves button.move[data-ply='2']")
    page.wait_for_function("window.gui.state.ply === 2 && !document.getElementById('notes').hidden")
    page.click("#notes button.glyph[data-glyph='3']")
    page.fill("#comment", f"the key move of {game}")
    cells = page.evaluate("Array.from(document.querySelectorAll('#board .cell')).map(c => c.dataset.cell)")
    right_drag(page, cells[0], cells[len(cells) // 2])
    page.wait_for_function("document.querySelectorAll('#board g.shape').length === 1")
    branch = branch_at_ply_three(page, moves)
    open_study_panel(page)
    page.fill("#study-name", f"{game} ideas")
    page.fill("#chapter-name", "the main game")
    page.click("#study-new")
    page.wait_for_function(SAVED, timeout=WAIT_S * 1000)
    tree = shape_of_tree(state(page, "tree"))
    assert len(tree[4][0][4][0][4]) == 2  # the variation beside the third move
    study = state(page, "study.id")
    # A change is saved by itself a moment later.
    page.click("#moves button.move[data-ply='1']")
    page.wait_for_function("window.gui.state.ply === 1")
    page.fill("#comment", "the first move")
    page.wait_for_function("window.gui.state.study.dirty", timeout=WAIT_S * 1000)
    page.wait_for_function(SAVED, timeout=WAIT_S * 1000)
    tree = shape_of_tree(state(page, "tree"))
    page.reload()
    page.wait_for_function("window.gui.state.position && window.gui.state.study", timeout=WAIT_S * 1000)
    assert shape_of_tree(state(page, "tree")) == tree and state(page, "study.id") == study
    assert not page.errors
    page.close()

    # Another browser finds it in the server's list and opens it.
    other = open_page(browser, gui, "othello" if game != "othello" else "clobber")
    open_study_panel(other)
    other.wait_for_function(f"document.querySelector('#study-list option[value=\"{study}\"]')", timeout=WAIT_S * 1000)
    other.select_option("#study-list", study)
    other.click("#study-open")
    other.wait_for_function(f"window.gui.state.game === '{game}' && window.gui.state.chapter"
                            " && window.gui.state.position && window.gui.state.position.game === '{game}'"
                            .replace("{game}", game), timeout=WAIT_S * 1000)
    assert shape_of_tree(state(other, "tree")) == tree
    assert other.inner_text("#chapters") == "1. the main game"
    other.click("#moves button.move[data-ply='2']")
    other.wait_for_function("window.gui.state.ply === 2 && document.querySelectorAll('#board g.shape').length === 1")
    assert other.inner_text("#moves button.move[data-ply='2'] .glyph") == "!!"
    assert other.input_value("#comment") == f"the key move of {game}"
    with other.expect_download(timeout=WAIT_S * 1000) as download:
        other.click("#study-export")
    saved = tmp_path / "study.sgf"
    download.value.save_as(saved)
    assert download.value.suggested_filename == f"{game} ideas.sgf"
    (record,) = read_sgf(saved.read_text(), "study.sgf")
    assert record.headers["SN"] == f"{game} ideas" and record.headers["GN"] == "the main game"
    assert [node.move for node in record.root.main_line()] == moves
    assert [child.move for child in record.root.main_line()[1].children] == [moves[2], branch[2]]
    assert not other.errors
    other.close()

    # A third imports the SGF file: a new study with the same tree.
    third = open_page(browser, gui, game)
    open_study_panel(third)
    third.set_input_files("#study-import", str(saved))
    third.wait_for_function(f"window.gui.state.study && window.gui.state.study.id && window.gui.state.study.id !== "
                            f"'{study}' && window.gui.state.position && window.gui.state.position.game === '{game}'",
                            timeout=WAIT_S * 1000)
    assert state(third, "study.name") == f"{game} ideas"
    assert shape_of_tree(state(third, "tree")) == tree
    assert not third.errors
    third.close()


def test_chapters_of_two_games_keep_their_own_trees(browser, gui: str, tmp_path: Path) -> None:
    """A chapter added from a game shown, a second chapter of another game: each click
    on a chapter shows its own game, and a move made in one is kept in it alone."""
    page = open_page(browser, gui, "clobber")
    moves = random_game("clobber", 3, seed=5)
    load_moves(page, tmp_path, "clobber", moves)
    open_study_panel(page)
    page.fill("#study-name", "two games")
    page.click("#study-new")
    page.wait_for_function(SAVED, timeout=WAIT_S * 1000)
    # The other game, shown and added as a chapter of its own.
    page.select_option("#game", "loa")
    page.wait_for_function("window.gui.state.position && window.gui.state.position.game === 'loa'"
                           " && window.gui.state.chapter === null")
    page.fill("#chapter-name", "lines")
    page.click("#chapter-add")
    page.wait_for_function("window.gui.state.study.chapters.length === 2 && window.gui.state.chapter")
    first = state(page, "position.legal[0]")
    page.click("button[data-mode='analyse']")
    from tools.gui_tour import click_cells

    click_cells(page, first["paths"][0])
    page.wait_for_function("window.gui.state.line.length === 1")
    page.wait_for_function(SAVED + " && window.gui.state.study.chapters[1].tree.children.length === 1",
                           timeout=WAIT_S * 1000)
    page.click("#chapters button.chapter >> nth=0")
    page.wait_for_function("window.gui.state.game === 'clobber' && window.gui.state.line.length === 3"
                           " && window.gui.state.position.game === 'clobber'")
    assert state(page, "study.chapters[0].tree.children[0].move") == moves[0]
    page.click("#chapters button.chapter >> nth=1")
    page.wait_for_function("window.gui.state.game === 'loa' && window.gui.state.line.length === 1")
    assert state(page, "line") == [first["move"]]
    with page.expect_download(timeout=WAIT_S * 1000) as download:
        page.click("#study-export")
    saved = tmp_path / "two.sgf"
    download.value.save_as(saved)
    games = read_sgf(saved.read_text(), "two.sgf")
    assert [(record.game, record.headers["GN"], record.moves()) for record in games] == [
        ("clobber", "Chapter 1", moves), ("loa", "lines", [first["move"]])]
    # Renamed, a chapter deleted (the page asks first), then the study deleted.
    page.on("dialog", lambda dialog: dialog.accept())
    page.fill("#study-name", "two games, renamed")
    page.click("#study-rename")
    page.fill("#chapter-name", "the lines")
    page.click("#chapter-rename")
    page.wait_for_function(SAVED + " && window.gui.state.study.name === 'two games, renamed'", timeout=WAIT_S * 1000)
    page.click("#chapters button.chapter >> nth=0")
    page.wait_for_function("window.gui.state.game === 'clobber'")
    page.click("#chapter-delete")
    page.wait_for_function("window.gui.state.study.chapters.length === 1 && window.gui.state.game === 'loa'")
    page.wait_for_function(SAVED, timeout=WAIT_S * 1000)
    page.evaluate("document.getElementById('study-panel').open = false")
    page.click("#study-panel summary")  # opening the panel lists the studies anew
    study = state(page, "study.id")
    option = f"#study-list option[value='{study}']"
    page.wait_for_function(f"document.querySelector(\"{option}\")"
                           f" && document.querySelector(\"{option}\").textContent === 'two games, renamed (1)'",
                           timeout=WAIT_S * 1000)
    assert page.inner_text("#chapters") == "1. the lines"
    page.click("#study-delete")
    page.wait_for_function(f"window.gui.state.study === null && !document.querySelector(\"{option}\")"
                           " && !window.gui.state.studies.some(item => item.id === '" + study + "')",
                           timeout=WAIT_S * 1000)
    assert state(page, "game") == "loa" and state(page, "line") == [first["move"]]  # the game shown stays
    assert not page.errors
    page.close()


@pytest.mark.parametrize("game", ["isolation", "abalone"])
def test_a_link_carries_the_whole_tree(browser, gui: str, tmp_path: Path, game: str) -> None:
    """A link to a game with variations, glyphs, comments and shapes opens them all in
    another browser; a link whose tree was cut short shows its line and says so."""
    from records.sgf import write_sgf
    from tests.adapters.test_gui_browser import tree_record

    record = tree_record(game, seed=4)
    record.root.children[0].comment = "ünïcode and \"quotes\" & <tags>"
    path = tmp_path / f"{game}.sgf"
    path.write_text(write_sgf([record]))
    page = open_page(browser, gui, game)
    page.click("button[data-mode='replay']")
    page.set_input_files("#record-file", str(path))
    page.wait_for_function("window.gui.state.tree.children.length === 1"
                           " && window.gui.state.tree.children[0].children.length === 2", timeout=WAIT_S * 1000)
    tree = shape_of_tree(state(page, "tree"))
    link = page.evaluate("window.gui.link()")
    assert "tree=" in link
    page.close()
    for address, whole in ((link, True), (link[:-12], False)):
        other = browser.new_context(viewport={"width": 1100, "height": 820}, bypass_csp=True).new_page()
        errors: list[str] = []
        other.on("pageerror", lambda error: errors.append(str(error)))
        other.goto(address)
        other.wait_for_function(f"window.gui.state.position && window.gui.state.position.game === '{game}'",
                                timeout=WAIT_S * 1000)
        assert state(other, "line") == record.moves()
        if whole:
            assert shape_of_tree(state(other, "tree")) == tree
            assert state(other, "tree.children[0].comment") == "ünïcode and \"quotes\" & <tags>"
        else:
            assert "the link's tree is broken" in other.inner_text("#message")
            assert len(state(other, "tree.children[0].children")) == 1
        assert not errors
        other.close()
