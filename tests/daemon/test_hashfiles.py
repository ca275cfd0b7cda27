"""The hash directory's names, the memory budget, and atomic file writing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daemon.hashfiles import HashBudget, HashFiles
from games.files import atomic_file, remove_stale_temporaries
from search.tt import HashFileError


@settings(max_examples=400)
@given(name=st.text(max_size=40) | st.sampled_from(["..", ".", "../x", "a/../../b", "/etc/passwd", "~root",
                                                     "a\\b", "x\x00y", ".hidden", "ok.hash", "a..b"]))
def test_a_name_is_a_file_directly_in_the_directory_or_refused(name: str) -> None:
    files = HashFiles(Path("/srv/hash"))
    try:
        path = Path(files.path(name))
    except HashFileError as error:
        assert error.kind == "name" and "is not a hash file name" in str(error)
        return
    assert path.parent == Path("/srv/hash") and path.name == name
    assert not name.startswith(".") and "/" not in name and "\\" not in name


def test_missing_reads_the_same_as_not_allowed_only_in_the_directory() -> None:
    missing = HashFileError("missing", "cannot read '/srv/hash/x': No such file or directory")
    assert str(HashFiles(Path("/srv/hash")).describe(missing, "x")) == "no hash file 'x'"
    assert HashFiles(None, allow_paths=True).describe(missing, "x") is missing
    assert HashFiles(None, allow_paths=True).path("~/t.hash") == os.path.expanduser("~/t.hash")


def test_the_budget_takes_what_fits_and_takes_back_what_is_released() -> None:
    budget = HashBudget(100)
    assert budget.reserve(60) and not budget.reserve(41) and budget.reserve(40)
    budget.release(60)
    assert budget.used == 40 and "0 of 0 MiB" in budget.describe()


def test_an_atomic_file_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "t.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic_file(target) as out:
            out.write(b"half")
            raise RuntimeError("interrupted")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["t.bin"]
    with atomic_file(target, "w", encoding="utf-8") as out:
        out.write("new")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["t.bin"]


def test_only_the_temporary_files_of_dead_writers_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead_pid = int(dead.stdout)
    alive_pid = os.getppid()
    names = [f".t.hash.{dead_pid}.abc123.tmp", f".t.hash.{alive_pid}.def456.tmp", f".t.hash.{os.getpid()}.x.tmp",
             "t.hash", ".t.hash.tmp", "other.tmp"]
    for name in names:
        (tmp_path / name).write_text("x")
    removed = {path.name for path in remove_stale_temporaries(tmp_path)}
    assert removed == {names[0], names[2]}
    assert sorted(os.listdir(tmp_path)) == sorted(names[1:2] + names[3:])
