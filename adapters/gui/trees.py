"""The page's game tree and the records library (docs/records.md): a record file the
user opens becomes the page's tree, variations, comments, glyphs and shapes included,
and the page's tree is saved as an SGF record.

The page holds a tree as nested objects: `{move, children, comment?, glyphs?, shapes?}`
(the root's move null), each shape `{cells, colour}`. What the page sends is a
stranger's: `record_of_tree` reads it iteratively, within the records' bounds, and the
rules check every move before anything is written.
"""

from __future__ import annotations

from adapters.codingame import turn_format
from games import all_games, find_game
from games.base import Position
from records.formats import formats, read_format
from records.sgf import read_sgf, write_sgf
from records.tree import MAX_NODES, MAX_TEXT, Node, Record, Shape, player_header


def leave(position: Position, player: int) -> Position:
    """The position a player's leaving makes, in a game of three (its turn format's)."""
    return turn_format(position.game.name).leave(position, player)  # type: ignore[attr-defined]


def read_tree_records(text: str, name: str) -> list[Record] | None:
    """The records of `text` where it is an SGF collection or a format of a game's own
    (GGF, a transcript); None where it is none of them (the page's other readers try
    it then). Raises ValueError where it is SGF, or a game's format, and broken."""
    head = text.lstrip()[:4096]
    if head.startswith("(;") and ("GE[" in head or _sgf_numbered(head)):
        return read_sgf(text, name, leave)
    for game in sorted(all_games()):
        for format_name in formats(game):
            try:
                return read_format(game, format_name, text, name)
            except ValueError:
                continue
    return None


def _sgf_numbered(head: str) -> bool:
    """Whether the collection's first node names its game by an SGF number."""
    return "GM[" in head and head.split("GM[", 1)[1][:1].isdigit()


def tree_message(record: Record) -> dict:
    """The page's tree of `record`, nested as the page holds it."""
    def shape(item: Shape) -> dict:
        return {"cells": list(item.cells), "colour": item.colour}

    top = {"move": None, "children": [], "comment": record.root.comment, "glyphs": list(record.root.glyphs),
           "shapes": [shape(item) for item in record.root.shapes]}
    stack = [(record.root, top)]
    while stack:
        node, out = stack.pop()
        for child in node.children:
            made = {"move": child.move, "children": [], "comment": child.comment, "glyphs": list(child.glyphs),
                    "shapes": [shape(item) for item in child.shapes]}
            out["children"].append(made)
            stack.append((child, made))
    return top


def players_of(record: Record) -> list[str | None]:
    """The players' names by seat, from the record's headers."""
    seats = find_game(record.game).num_players
    return [record.headers.get(player_header(record.game, seat)) for seat in range(seats)]


def record_of_tree(game: str, start: str | None, tree: object, headers: object = None) -> Record:
    """The record of the page's `tree` of `game` from `start`, every move checked by the
    rules; raises ValueError saying what is wrong with it."""
    find_game(game)
    record = Record(game, _headers(headers), {}, start)
    if not isinstance(tree, dict):
        raise ValueError("the tree is no object")
    stack: list[tuple[dict, Node]] = [(tree, record.root)]
    count = 0
    while stack:
        source, node = stack.pop()
        _markup(source, node)
        children = source.get("children", [])
        if not isinstance(children, list):
            raise ValueError("a node's children are no list")
        for item in children:
            count += 1
            if count > MAX_NODES:
                raise ValueError(f"the tree holds more than {MAX_NODES} moves")
            if not isinstance(item, dict) or not isinstance(item.get("move"), str) or not item["move"]:
                raise ValueError("a node below the root has no move")
            child = Node(item["move"], -1)
            node.children.append(child)
            stack.append((item, child))
    record.follow(leave)
    return record


def _headers(headers: object) -> dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, dict) or len(headers) > 64:
        raise ValueError("the headers are no object of at most 64 names")
    out = {}
    for name, value in headers.items():
        if not (isinstance(name, str) and name.isalpha() and name.isupper() and len(name) <= 16
                and isinstance(value, str) and len(value) <= MAX_TEXT):
            raise ValueError(f"header {str(name)[:20]!r} is no SGF name with a text")
        out[name] = value
    return out


def _markup(source: dict, node: Node) -> None:
    comment = source.get("comment", "")
    glyphs = source.get("glyphs", [])
    shapes = source.get("shapes", [])
    if not isinstance(comment, str) or len(comment) > MAX_TEXT:
        raise ValueError(f"a comment is no text of at most {MAX_TEXT} characters")
    if not isinstance(glyphs, list) or not all(isinstance(glyph, int) and 1 <= glyph <= 6 for glyph in glyphs):
        raise ValueError("the glyphs are numbers 1 to 6")
    if not isinstance(shapes, list) or len(shapes) > 256:
        raise ValueError("a move's shapes are a list of at most 256")
    node.comment = comment
    node.glyphs = list(dict.fromkeys(glyphs))
    for shape in shapes:
        if not isinstance(shape, dict) or not isinstance(shape.get("cells"), list):
            raise ValueError("a shape is no {cells, colour}")
        node.shapes.append(Shape(tuple(shape["cells"]), shape.get("colour", "green")))


def sgf_of_tree(game: str, start: str | None, tree: object, headers: object = None) -> str:
    """The SGF record of the page's tree (see `record_of_tree`)."""
    return write_sgf([record_of_tree(game, start, tree, headers)])
