"""The hash directory: its names, its disk budget, the memory budget, atomic file
writing, and the checks of a hash file's size; the protocol's side of each through the
real `engine` process, over pipes and over TCP."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daemon.hashfiles import INVISIBLE, HashBudget, HashFiles
from games.files import atomic_file, remove_stale_temporaries
from protocol.client import Engine, EngineError
from search.tt import HashFileError
from tests.conftest import StdioEngine, TcpEngine, run

#: Names with one character of each refused kind: C1 controls (NEL, CSI), a line and a
#: paragraph separator, bidirectional overrides, a zero-width space, private use,
#: unassigned.
INVISIBLE_NAMES = [f"a{char}b.hash" for char in "\x85\x9b\u2028\u2029\u202e\u2066\u200b\ue000\U000f0000\u0378"]


@settings(max_examples=400)
@given(name=st.text(max_size=40) | st.sampled_from(["..", ".", "../x", "a/../../b", "/etc/passwd", "~root",
                                                     "a\\b", "x\x00y", ".hidden", "ok.hash", "a..b",
                                                     "x\ud800y", *INVISIBLE_NAMES]))
def test_a_name_is_a_file_directly_in_the_directory_or_refused(name: str) -> None:
    files = HashFiles(Path("/srv/hash"))
    try:
        path = Path(files.path(name))
    except HashFileError as error:
        assert error.kind == "name" and "is not a hash file name" in str(error)
        assert all(unicodedata.category(char) not in INVISIBLE for char in str(error))
        return
    assert path.parent == Path("/srv/hash") and path.name == name
    assert not name.startswith(".") and "/" not in name and "\\" not in name
    assert all(unicodedata.category(char) not in INVISIBLE for char in name)


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


# ---- the hash directory's disk budget ---------------------------------------------------


def on_disk(folder: Path) -> dict[str, int]:
    """The size of every file in `folder` by name, temporary files included."""
    return {path.name: path.stat().st_size for path in folder.iterdir()}


async def save(client: Engine, name: str) -> EngineError | None:
    """`hash save name`: None when saved, the error when refused."""
    try:
        await client.ask(f"hash save {name}", "info string hash saved")
    except EngineError as error:
        return error
    return None


def test_the_room_check_counts_the_replaced_file_out_and_lets_no_save_grow_past_a_bound(
        tmp_path: Path) -> None:
    files = HashFiles(tmp_path, max_bytes=100, max_files=2)
    (tmp_path / "a").write_bytes(b"x" * 70)
    (tmp_path / "b").write_bytes(b"x" * 50)  # 120 bytes: over the budget already
    with files.room(files.path("a"), 70, "a"):
        pass  # no bigger: the directory does not grow
    with pytest.raises(HashFileError, match=r"^no room to save 'a' \(0.1 KiB\): 0.1 KiB of the hash directory's"
                                            r" 0.1 KiB in use \(--max-hash-dir-mib\)$"):
        with files.room(files.path("a"), 71, "a"):
            pass
    with pytest.raises(HashFileError, match=r"^no room to save 'c': 2 of the hash directory's 2 files in use"
                                            r" \(--max-hash-files\)$"):
        with files.room(files.path("c"), 0, "c"):
            pass
    (tmp_path / "b").unlink()
    with files.room(files.path("c"), 30, "c"):  # held until the block ends
        with pytest.raises(HashFileError, match="no room to save 'b'"):
            with files.room(files.path("b"), 1, "b"):
                pass
    with files.room(files.path("b"), 30, "b"):
        pass
    with HashFiles(tmp_path, allow_paths=True, max_bytes=1, max_files=1).room(str(tmp_path / "z"), 9, "z"):
        pass  # the user's own paths: no bound


def test_saves_under_new_names_stop_at_the_byte_budget_and_a_refusal_writes_nothing(tmp_path: Path) -> None:
    """A client saving under ever new names is refused once the next file would take the
    directory past --max-hash-dir-mib; a file may still be replaced by one no bigger,
    and a refused replacement leaves the old file as it was."""
    engine = TcpEngine("--hash-dir", str(tmp_path), "--max-hash-dir-mib", "1")

    async def scenario() -> None:
        client = await Engine.connect("127.0.0.1", engine.port)
        await client.send("setgame clobber")
        assert await save(client, "grow.hash") is None  # an empty table: a header alone
        grow = (tmp_path / "grow.hash").read_bytes()
        await client.bestmove("go depth 5")
        count = 0
        while (refused := await save(client, f"f{count}.hash")) is None:
            count += 1
            assert count < 100, "never refused"
        assert (refused.code, refused.command) == ("busy", "hash"), refused.line
        assert re.fullmatch(rf"no room to save 'f{count}\.hash' \(\d+\.\d KiB\): \d+\.\d KiB of the hash"
                            r" directory's 1\.0 MiB in use \(--max-hash-dir-mib\)", refused.message), refused.line
        full = on_disk(tmp_path)
        assert count >= 5 and len(full) == count + 1 and sum(full.values()) <= 1 << 20
        assert await save(client, "f0.hash") is None  # the same table again: no bigger
        await client.send("position startpos moves e2e3")
        await client.bestmove("go depth 4")  # more entries: grow.hash would now grow
        refused = await save(client, "grow.hash")
        assert refused is not None and refused.code == "busy", refused
        assert (tmp_path / "grow.hash").read_bytes() == grow
        assert on_disk(tmp_path) == full
        await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()


def test_the_file_budget_counts_every_regular_file_in_the_directory(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a hash file, but a file of the directory\n")
    (tmp_path / "elsewhere").symlink_to("/etc/passwd")  # a link is no file of its own

    async def scenario() -> None:
        async with StdioEngine("--hash-dir", str(tmp_path), "--max-hash-files", "3") as engine:
            await engine.send("setgame clobber")
            await engine.bestmove("go depth 2")
            assert await save(engine, "a.hash") is None and await save(engine, "b.hash") is None
            refused = await save(engine, "c.hash")
            assert refused is not None and refused.line == ("error busy hash no room to save 'c.hash': 3 of the"
                                                            " hash directory's 3 files in use (--max-hash-files)")
            assert await save(engine, "a.hash") is None

    run(scenario())
    assert sorted(on_disk(tmp_path)) == ["a.hash", "b.hash", "elsewhere", "notes.txt"]


@pytest.mark.parametrize("bound", [("--max-hash-dir-mib", "2"), ("--max-hash-files", "3")])
def test_saves_from_many_sessions_at_once_never_pass_a_bound_together(tmp_path: Path, bound) -> None:
    """Eight sessions holding the same table save it under new names at once, into an
    empty directory, round after round: the saves that pass are exactly those the bound
    has room for, however they interleave."""
    engine = TcpEngine("--hash-dir", str(tmp_path), *bound)

    async def scenario() -> None:
        clients = await asyncio.gather(*(Engine.connect("127.0.0.1", engine.port) for _ in range(8)))
        for client in clients:
            await client.send("setgame clobber")
        await clients[0].bestmove("go depth 6", timeout=120)
        await clients[0].ask("hash save seed.hash", "info string hash saved")
        for client in clients[1:]:
            await client.ask("hash load seed.hash", "info string hash loaded")
        size = (tmp_path / "seed.hash").stat().st_size
        room = (2 << 20) // size if bound[0] == "--max-hash-dir-mib" else 3
        assert 1 < room < len(clients)
        for round in range(4):
            for path in tmp_path.iterdir():
                path.unlink()
            names = [f"r{round}-s{index}.hash" for index in range(len(clients))]
            results = await asyncio.gather(*(save(client, name) for client, name in zip(clients, names)))
            assert all(error is None or error.code == "busy" for error in results), results
            saved = {name for name, error in zip(names, results) if error is None}
            assert on_disk(tmp_path) == dict.fromkeys(saved, size) and len(saved) == room
        for client in clients:
            await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()


def test_the_hash_file_saved_at_sigterm_keeps_to_the_budget(tmp_path: Path) -> None:
    (tmp_path / "other.hash").write_bytes(b"x")
    engine = TcpEngine("--hash-dir", str(tmp_path), "--max-hash-files", "1")

    async def scenario() -> None:
        client = await Engine.connect("127.0.0.1", engine.port)
        await client.send("setoption name HashFile value new.hash")
        await client.send("setgame clobber")
        await client.bestmove("go depth 2")
        engine.process.terminate()  # with the session open: its HashFile is saved, or refused
        assert await asyncio.to_thread(engine.process.wait, 10) == 0

    try:
        run(scenario())
    finally:
        engine.stop()
    deadline = time.monotonic() + 5
    while not any("hash file not saved" in line for line in engine.log) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert any("hash file not saved: no room to save 'new.hash': 1 of the hash directory's 1 files in use"
               " (--max-hash-files)" in line for line in engine.log), engine.log
    assert sorted(on_disk(tmp_path)) == ["other.hash"]


# ---- names and files the protocol refuses ------------------------------------------------


def test_names_with_invisible_characters_are_refused_and_never_echoed_raw(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with StdioEngine("--hash-dir", str(tmp_path)) as engine:
            await engine.send("setgame clobber")
            for name in INVISIBLE_NAMES:
                for command in (f"hash save {name}", f"hash load {name}", f"setoption name HashFile value {name}"):
                    with pytest.raises(EngineError) as refused:
                        await engine.ask(command, "readyok")
                    assert refused.value.code == "bad-value", refused.value.line
                    assert "is not a hash file name" in refused.value.message
                    assert all(unicodedata.category(char) not in INVISIBLE for char in refused.value.line)
            (escaped,) = await engine.ask("hash save a\u202ez", "error")
            assert escaped == ("error bad-value hash 'a\\x202ez' is not a hash file name: it holds a control,"
                               " format, separator, private-use or unassigned character")

    run(scenario())
    assert list(tmp_path.iterdir()) == []


def test_paths_with_invisible_characters_are_refused_too(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with StdioEngine("--allow-hash-paths") as engine:
            await engine.send("setgame clobber")
            with pytest.raises(EngineError) as refused:
                await engine.ask(f"hash save {tmp_path}/a\u2028b.hash", "readyok")
            assert refused.value.code == "bad-value" and "is not a hash file name" in refused.value.message
            assert await save(engine, f"{tmp_path}/plain.hash") is None

    run(scenario())
    assert [path.name for path in tmp_path.iterdir()] == ["plain.hash"]


def test_a_file_longer_or_shorter_than_its_header_says_is_refused_for_what_it_is(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        async with StdioEngine("--hash-dir", str(tmp_path)) as engine:
            await engine.send("setgame clobber")
            await engine.bestmove("go depth 2")
            (saved,) = await engine.ask("hash save t.hash", "info string hash saved")
            count = int(saved.split()[4])
            whole = (tmp_path / "t.hash").read_bytes()
            (tmp_path / "t.hash").write_bytes(whole + b"junk")
            (longer,) = await engine.ask("hash load t.hash", "error")
            assert longer == (f"error bad-value hash 't.hash' has 4 bytes after its end: {count} entries"
                              f" announced take {len(whole)} bytes, the file has {len(whole) + 4}")
            (tmp_path / "t.hash").write_bytes(whole[:-4])
            (shorter,) = await engine.ask("hash load t.hash", "error")
            assert shorter == (f"error bad-value hash 't.hash' is truncated: {count} entries announced take"
                               f" {len(whole)} bytes, the file has {len(whole) - 4}")
            (tmp_path / "t.hash").write_bytes(whole)
            (loaded,) = await engine.ask("hash load t.hash", "info string")
            assert loaded.startswith(f"info string hash loaded {count} entries")

    run(scenario())
