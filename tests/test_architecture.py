"""The shape of the code, read from its source (only the game registry is imported).

The modules checked are every Python file of the packages (`games`, `search`,
`records`, `protocol`, `daemon`, `adapters`, `tools`) and of `scripts/` (the wrappers of outside
programs in `scripts/sparring/`). An import is any `import` or `from ... import`
statement, at module level or inside a function or class, except under
`if TYPE_CHECKING:` (never run); an import by a computed name (`importlib.import_module`)
is not seen. In a script, a bare name is first the module beside it
(`from common import ...`), as Python's path puts the script's folder first.

- Layers: each package imports only what `ALLOWED` lists for it: adapters -> protocol
  and games (and the web GUI, which can run the daemon in its own process, -> daemon;
  and the CodinGame bot, whose own move is the engine's search run interpreted or its
  opening book's move, -> search and daemon.book);
  daemon -> protocol, search and games; search -> games; records (game records and
  their formats) -> games; adapters, tools and scripts -> records too; protocol -> only
  `games.text`; games -> nothing else. The tools may import every package, and scripts
  every package and the tools; no package imports a tool or a script.
- Applications stand apart: every part of `adapters/` is an application (`bot`, `arena`,
  `analysis`, `gui`) or a part they share (`codingame`, `view`, `pool`), as
  `ADAPTER_PARTS` lists. An application imports the shared parts and no other
  application, except the GUI, which shows analyses (gui -> analysis); a shared part
  imports no application.
- No import cycles: no module reaches itself again by following imports. An import of
  `a.b` leads to `a.b`, and `from a import b` to the module `a.b` where there is one,
  else to `a` (the package `a` that Python initialises on the way is not followed).
- Private names stay home: no module imports a `_name` from a module of another
  top-level package (`scripts` counting as one), nor reads `module._name` of one through
  a name it imported (`import a.b`, `from a import b`); dunder names (`__file__`) are not
  private.
- A game is named only by its own files: `games/<name>/` and
  `adapters/codingame/<name>.py`. No other file of the packages (`tools/` included) or
  of `scripts/` (any file, not only Python) has the name as a word, in any case, or as a
  part of an identifier (`othello_format`, `OthelloHistory`), so no shared code imports
  a game or branches on it. `scripts/sparring/` is exempt: it wraps outside programs that play
  particular games. A binary file (not UTF-8) names nothing.
- The tools import each other as modules of their package: no file of `tools/` or
  `scripts/` edits `sys.path` or puts an import after code (`# noqa: E402`).
  `scripts/sparring/` is exempt: its wrappers run under the outside programs'
  interpreters, where the project is not installed, and find it by its path.
- pyflakes finds no unused import or undefined name in the packages, scripts and tests.

A breach known and being mended is listed in `KNOWN_BREACHES`: its check is an expected
failure until then.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: For each package, the packages (or modules) its modules may import from.
ALLOWED = {
    "games": {"games"},
    "search": {"search", "games"},
    "records": {"records", "games"},
    "protocol": {"protocol", "games.text"},
    "daemon": {"daemon", "protocol", "search", "games"},
    "adapters": {"adapters", "protocol", "records", "games"},
    "tools": {"tools", "games", "search", "records", "protocol", "daemon", "adapters"},
    "scripts": {"scripts", "tools", "games", "search", "records", "protocol", "daemon", "adapters"},
}
#: Folders allowed more than their package: the web GUI serves an in-process daemon;
#: the bot's own move is the engine's search or its book's move.
ALLOWED_MORE = {("adapters", "gui"): {"daemon"}, ("adapters", "bot"): {"search", "daemon.book"}}
#: The parts of `adapters/` its applications share: each game's CodinGame text, how a
#: position is drawn and shown, the process pool.
SHARED_PARTS = {"codingame", "view", "pool"}
#: For each part of `adapters/` (a package, or a module such as `pool`), the other parts
#: its modules may import: an application only the shared parts (the GUI also the
#: analysis it shows), a shared part only the shared parts.
ADAPTER_PARTS = {
    "bot": SHARED_PARTS,
    "arena": SHARED_PARTS,
    "analysis": SHARED_PARTS,
    "gui": SHARED_PARTS | {"analysis"},
    **{part: SHARED_PARTS for part in SHARED_PARTS},
}
#: The folders checked: the packages (the tools among them) and the scripts.
CHECKED = tuple(ALLOWED)
#: Wrappers of outside programs that play particular games: they may name them.
SPARRING = ROOT / "scripts" / "sparring"

#: Known breaches that are being mended, by module or file, with what they are: their
#: checks are expected failures (not strict: they pass once the breach is gone).
KNOWN_BREACHES: dict[str, str] = {}


def expecting_breaches(keys, key_of=str) -> list:
    """`keys` as parameters, those of a known breach marked as expected failures."""
    return [pytest.param(key, marks=pytest.mark.xfail(strict=False, reason=KNOWN_BREACHES[key_of(key)]))
            if key_of(key) in KNOWN_BREACHES else key for key in keys]


def module_name(path: Path) -> str:
    """The dotted name of a module file: `games.base`, `games` for games/__init__.py,
    `scripts.sparring.common` for a script."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


FILES = sorted(path for folder in CHECKED for path in (ROOT / folder).rglob("*.py")
               if "__pycache__" not in path.parts)
MODULES = {module_name(path): path for path in FILES}


def is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


def import_nodes(node: ast.AST):
    """Every Import and ImportFrom under `node`, at any depth; of an `if TYPE_CHECKING:`,
    only those of its `else`."""
    for child in node.orelse if is_type_checking(node) else ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        else:
            yield from import_nodes(child)


@cache
def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def absolute(path: Path, name: str | None, level: int) -> str:
    """The module a (maybe relative) import from file `path` names; a bare name in a
    script is the script beside it when there is one."""
    if level:
        base = module_name(path).split(".")
        if path.name != "__init__.py":
            base = base[:-1]
        base = base[:len(base) - (level - 1)]
        return ".".join([*base, *([name] if name else [])])
    assert name is not None
    if path.relative_to(ROOT).parts[0] == "scripts":
        beside = module_name(path.with_name(name.split(".")[0] + ".py"))
        if beside in MODULES:
            return ".".join([beside, *name.split(".")[1:]])
    return name


def imports_of(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(module, names taken from it) for each import of the file: names are empty for
    `import module`."""
    found = []
    for node in import_nodes(tree_of(path)):
        if isinstance(node, ast.Import):
            found.extend((absolute(path, alias.name, 0), ()) for alias in node.names)
        else:
            found.append((absolute(path, node.module, node.level), tuple(alias.name for alias in node.names)))
    return found


def package_of(name: str) -> str:
    return name.split(".")[0]


def ours(name: str) -> bool:
    return package_of(name) in ALLOWED


def imported_modules(path: Path) -> set[str]:
    """The modules of ours the file imports: for `from a import b`, `a.b` where that is a
    module, else `a`."""
    targets = set()
    for module, names in imports_of(path):
        if not names:
            targets.add(module)
        for name in names:
            targets.add(f"{module}.{name}" if f"{module}.{name}" in MODULES else module)
    return {target for target in targets if target in MODULES}


@cache
def import_graph() -> dict[str, set[str]]:
    return {name: imported_modules(path) for name, path in MODULES.items()}


@cache
def cycle_members() -> dict[str, list[str]]:
    """For each module on an import cycle, one such cycle, from it back to it."""
    graph = import_graph()
    members = {}
    for start in graph:
        # Breadth first from `start`, to the shortest way back to it.
        came_from: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in came_from:
            following = []
            for module in frontier:
                for target in sorted(graph[module]):
                    if target not in came_from:
                        came_from[target] = module
                        following.append(target)
            frontier = following
        if start in came_from:
            cycle = [start]
            while len(cycle) == 1 or cycle[-1] != start:
                cycle.append(came_from[cycle[-1]])
            members[start] = cycle[::-1]
    return members


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("path", FILES, ids=relative)
def test_imports_follow_the_layers(path: Path) -> None:
    parts = path.relative_to(ROOT).parts
    allowed = ALLOWED[parts[0]] | ALLOWED_MORE.get(parts[:2], set())
    for module, _ in imports_of(path):
        if ours(module):
            assert any(module == name or module.startswith(name + ".") for name in allowed), (
                f"{relative(path)} imports {module}")


def adapter_parts(module: str, names: tuple[str, ...]) -> set[str]:
    """The parts of `adapters/` an import reaches: `b` for `adapters.b...`, and for
    `from adapters import b` each name taken."""
    parts = module.split(".")
    if parts[0] != "adapters":
        return set()
    return set(names) if len(parts) == 1 else {parts[1]}


@pytest.mark.parametrize("path", [path for path in FILES if module_name(path).startswith("adapters.")], ids=relative)
def test_applications_import_only_the_shared_parts(path: Path) -> None:
    own = module_name(path).split(".")[1]
    assert own in ADAPTER_PARTS, f"{relative(path)}: adapters.{own} is neither an application nor a shared part"
    for module, names in imports_of(path):
        for part in adapter_parts(module, names) - {own}:
            assert part in ADAPTER_PARTS[own], f"{relative(path)} imports {module} ({part})"


@pytest.mark.parametrize("module", expecting_breaches(sorted(MODULES)))
def test_no_import_cycle(module: str) -> None:
    cycle = cycle_members().get(module)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def module_bindings(path: Path) -> dict[str, str]:
    """The names the file binds to modules (or objects) of ours by its imports, with
    the dotted name each stands for: `import a.b` binds `a` to `a`, `import a.b as c`
    `c` to `a.b`, `from a import b` `b` to `a.b`."""
    bound = {}
    for node in import_nodes(tree_of(path)):
        for alias in node.names:
            if isinstance(node, ast.Import):
                name = alias.asname or alias.name.split(".")[0]
                bound[name] = alias.name if alias.asname else name
            else:
                bound[alias.asname or alias.name] = absolute(path, node.module, node.level) + "." + alias.name
    return {name: target for name, target in bound.items() if ours(target)}


def dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"], or None for anything but names and attributes."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else [*base, node.attr]
    return None


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@pytest.mark.parametrize("path", FILES, ids=relative)
def test_no_private_names_from_another_package(path: Path) -> None:
    own = package_of(module_name(path))
    for module, names in imports_of(path):
        if ours(module) and package_of(module) != own:
            private = [name for name in names if is_private(name)]
            assert not private, f"{relative(path)} imports {private} from {module}"
    bound = module_bindings(path)
    for node in ast.walk(tree_of(path)):
        chain = dotted(node) if isinstance(node, ast.Attribute) else None
        if chain and chain[0] in bound and is_private(chain[-1]):
            target = ".".join([bound[chain[0]], *chain[1:]])
            assert package_of(target) == own, f"{relative(path)} reads {target}"


def words(text: str) -> str:
    """The words of `text`, lowercased, identifiers split at underscores and changes of
    case (`OthelloHistory`: `othello history`), each between spaces."""
    parts = (part.lower() for token in re.findall(r"[A-Za-z0-9]+", text)
             for part in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", token))
    return " " + " ".join(parts) + " "


SHARED = sorted(path for folder in CHECKED for path in (ROOT / folder).rglob("*")
                if path.is_file() and "__pycache__" not in path.parts and SPARRING not in path.parents)


@pytest.mark.parametrize("path", expecting_breaches(SHARED, relative), ids=relative)
def test_only_a_games_own_files_name_it(path: Path) -> None:
    from games import all_games

    where = path.relative_to(ROOT)
    try:
        text = words(path.read_text())
    except UnicodeDecodeError:
        return  # data, such as a game's table of weights: it names nothing
    for name in all_games():
        own = where.parts[:2] == ("games", name) or where == Path("adapters", "codingame", f"{name}.py")
        assert own or words(name) not in text, f"{where} names {name}"


TOOL_FILES = sorted(path for folder in ("tools", "scripts") for path in (ROOT / folder).rglob("*")
                    if path.is_file() and "__pycache__" not in path.parts and SPARRING not in path.parents)


@pytest.mark.parametrize("path", TOOL_FILES, ids=relative)
def test_no_tool_edits_the_import_path(path: Path) -> None:
    text = path.read_text()
    assert "sys.path" not in text, f"{relative(path)} edits sys.path: tools import each other as `tools.NAME`"
    assert "noqa: E402" not in text, f"{relative(path)} imports after code"


def test_no_unused_import_or_undefined_name() -> None:
    """pyflakes over every module of the project, its scripts and its tests."""
    files = [str(path) for folder in (*CHECKED, "tests") for path in sorted((ROOT / folder).rglob("*.py"))]
    found = subprocess.run([sys.executable, "-m", "pyflakes", *files], capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr
