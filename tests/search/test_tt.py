"""The transposition table: replacement, memory bound, and hash files; its kernels
compiled and interpreted alike."""

from __future__ import annotations

import os

import numpy as np
import pytest

from games.kernel import interpreted
from search.tt import (
    EXACT,
    LOWER,
    UPPER,
    HashFileError,
    BUSY_SHIFT,
    TranspositionTable,
    capacity_for,
    peek_game,
    tt_busy,
    tt_claim,
    tt_store,
    tt_unmark,
    unpack_move,
)


@pytest.fixture(params=["compiled", "interpreted"])
def store(request):
    """`store(table, key, depth, bound, value, move)` through the `tt_store` kernel."""
    kernel = tt_store if request.param == "compiled" else interpreted(tt_store)

    def store(table: TranspositionTable, key: int, depth: int, bound: int, value: int,
              move: int | None) -> None:
        kernel(table.cells, np.uint64(key), np.int64(depth), np.int64(bound), np.int64(value),
               np.int64(-1 if move is None else move), np.int64(table.generation))

    return store


def filled(entries: int = 500, memory: int = 1 << 20) -> TranspositionTable:
    table = TranspositionTable("clobber", 1, memory)
    for i in range(entries):
        tt_store(table.cells, np.uint64(i * 0x9E3779B97F4A7C15 & (2**64 - 1)), np.int64(i % 20),
                 np.int64(i % 3), np.int64(i - 250), np.int64(i * 7), np.int64(0))
    return table


def contents(table: TranspositionTable) -> list[tuple[int, int]]:
    return sorted(table.pairs())


def test_store_and_probe_round_trip(store) -> None:
    table = TranspositionTable("clobber", 1, 1 << 20)
    store(table, 12345, 7, LOWER, -999_000, 4095)
    entry = table.probe(12345)
    assert entry is not None
    assert (entry >> 24) & 0x7F == 7 and (entry >> 31) & 3 == LOWER
    assert (entry & 0xFFFFFF) - (1 << 23) == -999_000
    assert unpack_move(entry) == 4095
    assert table.probe(12345 + table.slots) is None


def test_replacement_keeps_deeper_entries_of_the_current_search(store) -> None:
    table = TranspositionTable("clobber", 1, 1 << 20)
    clash = 5 + table.slots
    store(table, 5, 9, EXACT, 1, 1)
    store(table, clash, 3, EXACT, 2, 2)
    assert table.probe(5) is not None and table.probe(clash) is None
    table.new_search()
    store(table, clash, 3, UPPER, 2, 2)
    assert table.probe(clash) is not None, "entries of older searches give way"
    store(table, clash, 4, EXACT, 3, None)
    assert unpack_move(table.probe(clash)) == 2, "a store without a move keeps the old move"


def test_memory_stays_within_the_hash_option() -> None:
    memory = 4 << 20
    table = TranspositionTable("clobber", 1, memory)
    keys = (np.arange(table.slots * 2, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    table.absorb(keys, np.full(len(keys), (5 << 24) | (1 << 41) | 1000, dtype=np.uint64))
    assert table.entries() > table.slots * 0.6
    assert table.cells.nbytes <= memory and table.cells.nbytes * 2 > memory
    assert capacity_for(memory) == table.slots


@pytest.mark.parametrize("form", ["compiled", "interpreted"])
def test_a_full_table_still_takes_the_threads_marks(form: str) -> None:
    """Entries never go to the busy area, so a table filled by many searches still
    shares a tree out between threads: a move one thread claims, another defers."""
    claim, busy, unmark = (tt_claim, tt_busy, tt_unmark) if form == "compiled" else (
        interpreted(tt_claim), interpreted(tt_busy), interpreted(tt_unmark))
    table = TranspositionTable("clobber", 1, 1 << 20)
    keys = np.arange(table.slots * 4, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    table.absorb(keys, np.full(len(keys), (5 << 24) | (1 << 41) | 1000, dtype=np.uint64))
    area = table.slots >> BUSY_SHIFT
    assert not table.cells[-area:, 1].any(), "no entry in the busy area"
    assert table.cells[:-area, 1].all(), "every other slot filled"
    for key in keys[:200:7]:
        mark = key ^ np.uint64(0x5A5A)
        assert not busy(table.cells, mark)
        assert claim(table.cells, mark, True), "a free move is claimed"
        assert busy(table.cells, mark)
        assert not claim(table.cells, mark, True), "another thread defers it"
        assert claim(table.cells, mark, False), "or searches it when it may not defer"
        unmark(table.cells, mark)
        assert not busy(table.cells, mark)
    held = table.entries()
    table.absorb(keys[:1000], np.full(1000, (6 << 24) | (1 << 41) | 1000, dtype=np.uint64))
    assert table.entries() == held and table.probe(int(keys[5])) is not None


def test_an_empty_table_saves_and_loads(tmp_path) -> None:
    path = str(tmp_path / "empty.hash")
    assert TranspositionTable("clobber", 1, 1 << 20).save(path) == 0
    assert filled().load(path) == 0


def test_save_and_load_round_trip(tmp_path) -> None:
    table = filled()
    path = str(tmp_path / "t.hash")
    assert table.save(path) == table.entries()
    assert peek_game(path) == "clobber"
    other = TranspositionTable("clobber", 1, 1 << 20)
    assert other.load(path) == table.entries()
    assert [(k, d & ((1 << 33) - 1), d >> 41) for k, d in contents(other)] == [
        (k, d & ((1 << 33) - 1), d >> 41) for k, d in contents(table)
    ]
    assert not [name for name in os.listdir(tmp_path) if ".tmp" in name]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "garbage"])
def test_damaged_files_are_refused_and_the_table_kept(tmp_path, damage: str) -> None:
    path = tmp_path / "t.hash"
    filled().save(str(path))
    blob = bytearray(path.read_bytes())
    if damage == "flip":
        blob[len(blob) // 2] ^= 0x40
    elif damage == "truncate":
        blob = blob[: len(blob) - 20]
    elif damage == "empty":
        blob = bytearray()
    else:
        blob = bytearray(b"not a table at all\n" * 10)
    path.write_bytes(bytes(blob))
    table = filled(50)
    before = contents(table)
    with pytest.raises(HashFileError) as error:
        table.load(str(path))
    assert error.value.kind == "format"
    assert contents(table) == before


def test_files_of_another_game_or_key_scheme_are_refused(tmp_path) -> None:
    path = str(tmp_path / "t.hash")
    filled().save(path)
    with pytest.raises(HashFileError, match="'clobber' table, not 'othello'"):
        TranspositionTable("othello", 1, 1 << 20).load(path)
    with pytest.raises(HashFileError, match="key scheme"):
        TranspositionTable("clobber", 2, 1 << 20).load(path)


def test_file_system_errors_are_io_errors(tmp_path) -> None:
    with pytest.raises(HashFileError) as error:
        filled().load(str(tmp_path / "missing.hash"))
    assert error.value.kind == "missing"
    with pytest.raises(HashFileError) as error:
        filled().save(str(tmp_path / "no" / "such" / "dir.hash"))
    assert error.value.kind == "io"


def test_only_regular_files_are_read_and_never_block(tmp_path) -> None:
    """A FIFO with no writer, a device and a directory are refused at once, the table kept."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    table = filled(50)
    before = contents(table)
    for path in (str(fifo), "/dev/zero", str(tmp_path)):
        with pytest.raises(HashFileError) as error:
            table.load(path)
        assert error.value.kind == "missing", path
    assert contents(table) == before


def test_links_are_refused_unless_followed(tmp_path) -> None:
    path = tmp_path / "t.hash"
    filled().save(str(path))
    (tmp_path / "link.hash").symlink_to(path)
    table = TranspositionTable("clobber", 1, 1 << 20)
    assert table.load(str(tmp_path / "link.hash")) > 0
    with pytest.raises(HashFileError) as error:
        table.load(str(tmp_path / "link.hash"), follow_links=False)
    assert error.value.kind == "missing"


def test_the_entry_count_is_checked_before_the_body_is_read(tmp_path) -> None:
    path = tmp_path / "t.hash"
    filled().save(str(path))
    table = filled(50)
    before = contents(table)
    with pytest.raises(HashFileError, match="more than the 10 the hash budget allows"):
        table.load(str(path), max_entries=10)
    # A header that announces far more entries than the file holds.
    blob = bytearray(path.read_bytes())
    blob[18:26] = (1 << 40).to_bytes(8, "little")
    path.write_bytes(bytes(blob))
    with pytest.raises(HashFileError, match="truncated"):
        table.load(str(path))
    assert contents(table) == before


def test_a_halted_save_or_load_leaves_everything_as_it_was(tmp_path) -> None:
    import threading

    path = tmp_path / "t.hash"
    table = filled()
    table.save(str(path))
    saved = path.read_bytes()
    halt = threading.Event()
    halt.set()
    with pytest.raises(HashFileError) as error:
        filled(50).save(str(path), halt)
    assert error.value.kind == "stopped"
    assert path.read_bytes() == saved and os.listdir(tmp_path) == ["t.hash"]
    other = filled(50)
    before = contents(other)
    with pytest.raises(HashFileError) as error:
        other.load(str(path), halt)
    assert error.value.kind == "stopped" and contents(other) == before


def test_a_header_cut_inside_the_game_name_is_truncated_not_another_game(tmp_path) -> None:
    path = tmp_path / "t.hash"
    filled().save(str(path))
    path.write_bytes(path.read_bytes()[:30])  # the name 'clobber' cut to 'clo'
    with pytest.raises(HashFileError, match="truncated in its header"):
        peek_game(str(path))
