"""The Python examples of the README and docs/client.md run as written (their engine
command aside)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, engine_command


def example_env(tmp_path: Path) -> dict[str, str]:
    return {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg",
            "ENGINE_HASH_DIR": str(tmp_path), "HOME": str(tmp_path)}


def test_the_readme_analysis_example_writes_its_json_and_plot(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    code = readme.split("<!-- example: analyse -->\n```python\n", 1)[1].split("```", 1)[0]
    assert '["scripts/engine"]' in code
    code = code.replace('["scripts/engine"]', repr(engine_command()))
    script = tmp_path / "example.py"
    script.write_text(code)
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=example_env(tmp_path))
    assert result.returncode == 0, result.stderr
    plies = json.loads((tmp_path / "analysis.json").read_text())
    assert [ply["ply"] for ply in plies] == list(range(1, 11)) and all(ply["best"] for ply in plies)
    assert (tmp_path / "analysis.png").read_bytes()[:4] == b"\x89PNG"


def client_examples() -> list[str]:
    import textwrap

    text = (ROOT / "docs" / "client.md").read_text()
    blocks = []
    for part in text.split("```python\n")[1:]:
        block = part.split("```", 1)[0]
        blocks.append(textwrap.dedent(block))
    return blocks


@pytest.mark.parametrize("index", range(len(client_examples())))
def test_the_client_page_examples_run(index: int, tmp_path: Path) -> None:
    code = client_examples()[index]
    assert '["engine"]' in code
    script = tmp_path / "example.py"
    script.write_text(code.replace('["engine"]', repr(engine_command())))
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=example_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()
