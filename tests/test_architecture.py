"""Imports run one way: daemon -> protocol -> search -> games.base <- games/<name>, and
adapters -> protocol, games (clients of the daemon that ask the games for rules)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: For each layer, the packages (or modules) its modules may import from.
ALLOWED = {
    "games": {"games"},
    "search": {"search", "games"},
    "protocol": {"protocol", "games.text"},
    "daemon": {"daemon", "protocol", "search", "games"},
    "adapters": {"adapters", "protocol", "games"},
}
OURS = set(ALLOWED)


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


MODULES = sorted(path for layer in ALLOWED for path in (ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_layers(path: Path) -> None:
    layer = path.relative_to(ROOT).parts[0]
    for name in imports_of(path):
        top = name.split(".")[0]
        if top in OURS:
            assert any(name == allowed or name.startswith(allowed + ".") for allowed in ALLOWED[layer]), (
                f"{path.relative_to(ROOT)} imports {name}")
        parts = name.split(".")
        in_game = path.relative_to(ROOT).parts[:2]
        if top == "games" and len(parts) > 1 and (ROOT / top / parts[1]).is_dir():
            # Only a game's own packages may name it; generic code uses the registry.
            assert in_game == ("games", parts[1]), (
                f"{path.relative_to(ROOT)} imports {name}")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_names_from_another_package(path: Path) -> None:
    own = path.relative_to(ROOT).parts[0]
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != own:
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                assert not private, f"{path.relative_to(ROOT)} imports {private} from {node.module}"


SOURCES = sorted([*MODULES, *(path for path in (ROOT / "scripts").iterdir() if path.is_file())])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_only_a_games_own_files_name_it(path: Path) -> None:
    from games import all_games

    relative = path.relative_to(ROOT)
    text = path.read_text()
    for name in all_games():
        own = relative.parts[:2] == ("games", name) or relative == Path("adapters", "codingame", f"{name}.py")
        if not own:
            assert not re.search(rf"\b{name}\b", text, re.IGNORECASE), f"{relative} names {name}"


def test_no_unused_import_or_undefined_name() -> None:
    """pyflakes over every module of the project, its scripts and its tests."""
    import subprocess
    import sys

    files = [str(path) for folder in (*ALLOWED, "scripts", "tests") for path in sorted((ROOT / folder).rglob("*.py"))]
    found = subprocess.run([sys.executable, "-m", "pyflakes", *files], capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr
