"""SGF (FF[4]) records of the engine's games: read and written, the whole tree.

A collection holds one game tree per record. The root node names the game: `GM[n]`,
SGF's number of it where SGF has one (`records.formats.sgf_number`), and for every
game the private property `GE[name]`, the engine's name of it (a game without an SGF
number is named by GE alone). Beside it: `FF[4]`,
`CA[UTF-8]`, `AP[engine]`, the record's headers under their own SGF names (`PB`, `PW`,
`EV`, `DT`, `RE`, `GN`, `PC`, ...; a third side's player under `PRED`, `PGREEN`,
`PBLUE`), the start board as the private `BT[board text]` and the `setgame`
parameters as the private `GP[name=value]`, one value each. The root's comment is `C`.

A move is the protocol's move token under the mover's side: `B[f5]`, `W[b1c1]`, and in
a game of three sides `RED[...]`, `GREEN[...]`, `BLUE[...]` (`LEAVE`, `leave`, for a player
who left). On any node: `C[comment]`; the glyphs as SGF's move annotations, `TE[1]` !,
`BM[1]` ?, `TE[2]` !!, `BM[2]` ??, `IT[]` !?, `DO[]` ?!; green shapes as SGF's markup,
`AR[from:to]` and `CR[cell]`, cells named as the GUI names them, and shapes of the
other colours under the private `XS[colour:cell]` or `XS[colour:from:to]`.

Reading is iterative and bounded: at most MAX_BYTES of text, MAX_NODES moves and
MAX_NESTING open variations; nodes without a move below the root lend their comment,
glyphs and shapes to the move before them; unknown properties are skipped. Every
refusal is a ValueError that names the file and the line and column.
"""

from __future__ import annotations

from typing import Callable, Iterator

from games import all_games, find_game
from games.base import Position
from records.formats import game_of_sgf_number, sgf_number
from records.tree import (
    COLOURS,
    MAX_NODES,
    MAX_TEXT,
    Node,
    Record,
    Shape,
    check_bounds,
    move_property,
)

#: The most bytes of SGF text read.
MAX_BYTES = 16 * 1024 * 1024
#: The most variations open at once (nested parentheses).
MAX_NESTING = 1000
#: The glyphs as SGF's move annotations, and back.
_ANNOTATIONS = {1: ("TE", "1"), 2: ("BM", "1"), 3: ("TE", "2"), 4: ("BM", "2"), 5: ("IT", ""), 6: ("DO", "")}
_GLYPH_OF = {(name, value): glyph for glyph, (name, value) in _ANNOTATIONS.items()}
#: Root properties the writer makes and the reader takes apart from the headers.
_ROOT_OWN = {"FF", "CA", "AP", "GM", "GE", "BT", "GP", "C", "SZ"}
#: Node properties read into a node's fields.
_NODE_OWN = {"C", "TE", "BM", "IT", "DO", "AR", "CR", "XS"}


def write_sgf(records: list[Record]) -> str:
    """The SGF collection of `records`, each node's `player` set (`Record.follow`)."""
    return "\n".join(_write(record) for record in records) + "\n"


def _write(record: Record) -> str:
    check_bounds(record)
    root = [("FF", ["4"]), ("CA", ["UTF-8"]), ("AP", ["engine"])]
    number = sgf_number(record.game)
    if number is not None:
        root.append(("GM", [str(number)]))
    root.append(("GE", [record.game]))
    root.extend((name, [value]) for name, value in record.headers.items())
    if record.start is not None:
        root.append(("BT", [record.start]))
    if record.params:
        root.append(("GP", [f"{name}={value}" for name, value in record.params.items()]))
    root.extend(_markup(record.root))
    out = ["(;", _properties(root)]
    # Iterative: ("node", n) writes a node, ")" closes a variation.
    stack: list[object] = []
    _push_children(stack, record.root)
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node = item
        assert isinstance(node, Node)
        if node.player is None or node.player < 0 or node.move is None:
            raise ValueError(f"move {node.move!r} has no player: follow the record first")
        out.append(";" + _properties([(move_property(record.game, node.player), [node.move])] + _markup(node)))
        _push_children(stack, node)
    out.append(")")
    return "".join(out)


def _push_children(stack: list[object], node: Node) -> None:
    """Schedule `node`'s children: the main line goes on in the same sequence, each
    variation in parentheses after it (SGF: variations are siblings in a subtree each)."""
    children = node.children
    if len(children) == 1:
        stack.append(children[0])
    elif children:
        for child in reversed(children):
            stack.append(")")
            stack.append(child)
            stack.append("(")


def _markup(node: Node) -> list[tuple[str, list[str]]]:
    properties: list[tuple[str, list[str]]] = []
    if node.comment:
        properties.append(("C", [node.comment]))
    for glyph in node.glyphs:
        name, value = _ANNOTATIONS[glyph]
        properties.append((name, [value]))
    arrows = [":".join(shape.cells) for shape in node.shapes if shape.colour == COLOURS[0] and shape.is_arrow]
    circles = [shape.cells[0] for shape in node.shapes if shape.colour == COLOURS[0] and not shape.is_arrow]
    others = [":".join((shape.colour,) + shape.cells) for shape in node.shapes if shape.colour != COLOURS[0]]
    for name, values in (("AR", arrows), ("CR", circles), ("XS", others)):
        if values:
            properties.append((name, values))
    return properties


def _properties(properties: list[tuple[str, list[str]]]) -> str:
    return "".join(name + "".join(f"[{_escape(value)}]" for value in values) for name, values in properties)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


# ---- reading ------------------------------------------------------------------------


class _Raw:
    """A node as read: its properties in order and its children, with where it began."""

    __slots__ = ("properties", "children", "where")

    def __init__(self, where: str):
        self.properties: list[tuple[str, list[str]]] = []
        self.children: list[_Raw] = []
        self.where = where


def read_sgf(text: str, where: str = "<sgf>",
             leave: Callable[[Position, int], Position] | None = None) -> list[Record]:
    """The records of the SGF collection `text` (from `where`, named in errors), each
    followed by the rules (`Record.follow`, with `leave`); raises ValueError naming the
    place of the first fault."""
    if len(text) > MAX_BYTES:
        raise ValueError(f"{where}: {len(text)} characters of SGF, more than the {MAX_BYTES} read")
    records = []
    for raw in _parse(text, where):
        record = _record(raw, where)
        try:
            check_bounds(record)
            record.follow(leave)
        except ValueError as error:
            raise ValueError(f"{raw.where}: {error}") from None
        records.append(record)
    if not records:
        raise ValueError(f"{where}: no game tree in the file")
    return records


def _parse(text: str, where: str) -> list[_Raw]:
    """The collection's game trees as raw nodes, read without recursion."""
    roots: list[_Raw] = []
    stack: list[_Raw | None] = []  # what each open '(' attaches to (None: a new game)
    current: _Raw | None = None
    opened = False  # a '(' read and no node after it yet
    nodes = 0
    index, length = 0, len(text)
    line, line_start = 1, 0

    def place(at: int) -> str:
        return f"{where}:{line}:{at - line_start + 1}"

    while index < length:
        char = text[index]
        if char == "\n":
            line, line_start = line + 1, index + 1
            index += 1
        elif char.isspace():
            index += 1
        elif char == "(":
            if len(stack) >= MAX_NESTING:
                raise ValueError(f"{place(index)}: more than {MAX_NESTING} variations open at once")
            stack.append(current)  # the node its variation follows; None: a new game
            opened = True
            index += 1
        elif char == ")":
            if not stack:
                raise ValueError(f"{place(index)}: ')' closes no game tree")
            if opened:
                raise ValueError(f"{place(index)}: an empty variation, '()'")
            current = stack.pop()
            index += 1
        elif char == ";":
            if not stack:
                raise ValueError(f"{place(index)}: a node outside any game tree")
            nodes += 1
            if nodes > MAX_NODES + 1:
                raise ValueError(f"{place(index)}: more than {MAX_NODES} nodes")
            node = _Raw(place(index))
            if current is None:
                if len(stack) != 1:
                    raise ValueError(f"{place(index)}: a variation with no node before it")
                roots.append(node)
            else:
                current.children.append(node)
            current = node
            opened = False
            index += 1
        elif "A" <= char <= "Z" or "a" <= char <= "z":
            if current is None or opened:
                raise ValueError(f"{place(index)}: a property outside any node")
            start = index
            while index < length and ("A" <= text[index] <= "Z" or "a" <= text[index] <= "z"):
                index += 1
            # FF[3] allowed lower-case letters in identifiers; FF[4] ignores them.
            name = "".join(c for c in text[start:index] if c.isupper())
            if len(name) > 16:
                raise ValueError(f"{place(start)}: a property name of {len(name)} letters")
            values = []
            while True:
                while index < length and text[index].isspace():
                    if text[index] == "\n":
                        line, line_start = line + 1, index + 1
                    index += 1
                if index >= length or text[index] != "[":
                    break
                value, index, line, line_start = _value(text, index + 1, where, line, line_start)
                values.append(value)
            if not values:
                raise ValueError(f"{place(start)}: property {name or text[start:index]} has no value")
            current.properties.append((name, values))
        else:
            raise ValueError(f"{place(index)}: unexpected {char!r}")
    if stack:
        raise ValueError(f"{where}: the file ends inside a game tree ({len(stack)} left open)")
    return roots


def _value(text: str, index: int, where: str, line: int, line_start: int) -> tuple[str, int, int, int]:
    """The value from text[index] (after '[') to its ']', unescaped, and where reading
    goes on; a soft line break (backslash, newline) is dropped."""
    parts: list[str] = []
    begin_line, begin_column = line, index - line_start
    length = len(text)
    size = 0
    while True:
        if index >= length:
            raise ValueError(f"{where}:{begin_line}:{begin_column}: a value that never ends (no ']')")
        char = text[index]
        if char == "]":
            return "".join(parts), index + 1, line, line_start
        if char == "\\":
            index += 1
            if index >= length:
                continue
            char = text[index]
            if char == "\n":
                line, line_start = line + 1, index + 1
                index += 1
                continue
        elif char == "\n":
            line, line_start = line + 1, index + 1
        parts.append(char)
        size += 1
        if size > MAX_TEXT:
            raise ValueError(f"{where}:{begin_line}:{begin_column}: a value of more than {MAX_TEXT} characters")
        index += 1


def _record(raw: _Raw, where: str) -> Record:
    """The record of one raw game tree (players found from the move properties)."""
    properties = dict(_merged(raw.properties))
    name = _game_name(properties, raw.where)
    game = find_game(name)
    seats = {move_property(name, seat): seat for seat in range(game.num_players)}
    record = Record(name)
    record.headers = {key: values[0] for key, values in raw.properties
                      if key not in _ROOT_OWN and key not in seats and key not in _NODE_OWN}
    if "BT" in properties:
        record.start = properties["BT"][0]
    for value in properties.get("GP", []):
        key, equals, setting = value.partition("=")
        if not equals or not key:
            raise ValueError(f"{raw.where}: GP[{value}] is no name=value parameter")
        record.params[key] = setting
    stack: list[tuple[_Raw, Node]] = [(raw, record.root)]
    while stack:
        source, node = stack.pop()
        moves = [(key, values) for key, values in source.properties if key in seats]
        if len(moves) > 1 or (moves and len(moves[0][1]) != 1):
            raise ValueError(f"{source.where}: a node holds one move, not {sum(len(v) for _, v in moves)}")
        if source is raw:
            _read_markup(source, node)  # the root's comment and shapes are the record's
        if moves:
            key, (token,) = moves[0]
            _check_token(token, source.where)
            child = Node(token, seats[key])
            node.children.append(child)
            node = child
        if source is not raw:
            _read_markup(source, node)
        for sub in reversed(source.children):
            stack.append((sub, node))
    return record


def _merged(properties: list[tuple[str, list[str]]]) -> Iterator[tuple[str, list[str]]]:
    seen: dict[str, list[str]] = {}
    for key, values in properties:
        seen.setdefault(key, []).extend(values)
    return iter(seen.items())


def _game_name(properties: dict[str, list[str]], where: str) -> str:
    if "GE" in properties:
        name = properties["GE"][0]
        if name not in all_games():
            raise ValueError(f"{where}: GE[{name}] names no game of the engine ({', '.join(sorted(all_games()))})")
        return name
    number = properties.get("GM", ["1"])[0].strip()
    name = game_of_sgf_number(int(number)) if number.isdigit() and len(number) < 6 else None
    if name is None:
        raise ValueError(f"{where}: GM[{number[:20]}] is no game of the engine: GE names the engine's games")
    return name


def _check_token(token: str, where: str) -> None:
    if not token or len(token) > 64 or not token.isprintable() or " " in token:
        raise ValueError(f"{where}: {token!r} is no move token")


def _read_markup(source: _Raw, node: Node) -> None:
    """A node's comment, glyphs and shapes into `node` (added to what it has: a node
    without a move lends them to the move before it)."""
    for key, values in source.properties:
        if key == "C":
            node.comment = "\n".join(part for part in (node.comment, *values) if part)
            if len(node.comment) > MAX_TEXT:
                raise ValueError(f"{source.where}: a comment of more than {MAX_TEXT} characters")
        elif key in ("TE", "BM", "IT", "DO"):
            glyph = _GLYPH_OF.get((key, (values[0].strip() or "1") if key in ("TE", "BM") else ""))
            if glyph is not None and glyph not in node.glyphs:
                node.glyphs.append(glyph)
        elif key in ("AR", "CR", "XS"):
            for value in values:
                node.shapes.append(_shape(key, value, source.where))
            if len(node.shapes) > 256:
                raise ValueError(f"{source.where}: more than 256 shapes on one move")


def _shape(key: str, value: str, where: str) -> Shape:
    parts = value.split(":")
    colour = COLOURS[0]
    if key == "XS":
        colour, parts = parts[0], parts[1:]
    if (key == "AR" and len(parts) != 2) or (key == "CR" and len(parts) != 1):
        raise ValueError(f"{where}: {key}[{value}] is no {'arrow' if key == 'AR' else 'circle'}")
    try:
        return Shape(tuple(parts), colour)
    except ValueError as error:
        raise ValueError(f"{where}: {key}[{value}]: {error}") from None


