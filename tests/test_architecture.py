"""Imports run one way: daemon -> protocol -> search -> games.base <- games/<name>, and
adapters -> protocol, games (clients of the daemon that ask the games for rules); the
compiled core sits beside the protocol: daemon -> compiled -> search, games, with each
compiled/<name>/ mirroring games/<name>/ only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: For each layer, the top-level packages its modules may import from.
ALLOWED = {
    "games": {"games"},
    "search": {"search", "games"},
    "protocol": {"protocol", "search", "games"},
    "compiled": {"compiled", "search", "games"},
    "daemon": {"daemon", "protocol", "compiled", "search", "games"},
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
            assert top in ALLOWED[layer], f"{path.relative_to(ROOT)} imports {name}"
        parts = name.split(".")
        in_game = path.relative_to(ROOT).parts[:2]
        if top in ("games", "compiled") and len(parts) > 1 and (ROOT / top / parts[1]).is_dir():
            # Only a game's own packages may name it; generic code uses the registry.
            assert in_game[1:] == (parts[1],) and in_game[0] in ("games", "compiled"), (
                f"{path.relative_to(ROOT)} imports {name}")
