"""The transposition table of the compiled core: one (slots, 2) numpy uint64 array.

Each slot is a key word and a data word side by side, so a probe costs one cache miss.
Entries are packed exactly as in `search.tt` (value, depth, bound, generation, move) and
stored under the same replacement rule, so a search fills either table the same way,
and a hash file written by one core loads into the other. A slot is empty when its
data word is 0 (a stored entry never packs to 0: its value field is at least 1).
A slot costs 16 bytes instead of the reference's 96, so the same `Hash` holds six
times as many entries.
"""

from __future__ import annotations

import mmap
import threading
import time

import numpy as np
from games.kernel import kernel

from search.tt import (
    MAX_DEPTH,
    MAX_VALUE,
    VALUE_OFFSET,
    capacity_for,
    read_hash_body,
    replacement,
    write_hash_body,
)

#: Bytes per slot: a key and a data word.
SLOT_BYTES = 16

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_S24 = np.uint64(24)
_S31 = np.uint64(31)
_S33 = np.uint64(33)
_S41 = np.uint64(41)
_M24 = np.uint64(0xFFFFFF)
_M7 = np.uint64(0x7F)
_M2 = np.uint64(0x3)
_M8 = np.uint64(0xFF)


@kernel(inline=True)
def entry_value(entry):
    """The stored score (mate scores ply-free) of a non-empty entry."""
    return np.int64(entry & _M24) - VALUE_OFFSET


@kernel(inline=True)
def entry_depth(entry):
    return np.int64((entry >> _S24) & _M7)


@kernel(inline=True)
def entry_bound(entry):
    return np.int64((entry >> _S31) & _M2)


@kernel(inline=True)
def entry_move(entry):
    """The stored move, -1 for none (or for an empty entry)."""
    return np.int64(entry >> _S41) - 1


@kernel(inline=True)
def tt_probe(cells, key):
    """The packed entry stored for `key`, 0 when there is none."""
    index = key & np.uint64(len(cells) - 1)
    if cells[index, 0] == key:
        return cells[index, 1]
    return _U0


@kernel
def tt_store(cells, key, depth, bound, value, move, generation):
    """Record a search result under `search.tt`'s replacement rule; `move` -1 is none
    (the slot's move for the same key is then kept)."""
    index = key & np.uint64(len(cells) - 1)
    old = cells[index, 1]
    same = cells[index, 0] == key and old != _U0
    if old != _U0 and not same:
        if np.int64((old >> _S33) & _M8) == generation and np.int64((old >> _S24) & _M7) > depth:
            return
    if move < 0 and same:
        move = np.int64(old >> _S41) - 1
    if value > MAX_VALUE:
        value = MAX_VALUE
    elif value < -MAX_VALUE:
        value = -MAX_VALUE
    if depth > MAX_DEPTH:
        depth = MAX_DEPTH
    cells[index, 0] = key
    cells[index, 1] = (
        np.uint64(value + VALUE_OFFSET)
        | (np.uint64(depth) << _S24)
        | (np.uint64(bound) << _S31)
        | (np.uint64(generation) << _S33)
        | (np.uint64(move + 1) << _S41)
    )


@kernel
def _store_all(cells, pair_keys, pair_data, generation):
    for i in range(len(pair_keys)):
        entry = pair_data[i]
        tt_store(cells, pair_keys[i], entry_depth(entry), entry_bound(entry),
                 entry_value(entry), entry_move(entry), generation)


#: madvise(MADV_POPULATE_WRITE), Linux 5.14 and later: map pages without touching them.
_POPULATE_WRITE = 23
#: Bytes mapped per madvise call: the call holds the GIL, so it is cut into short ones.
_POPULATE_CHUNK = 1 << 18


def _new_cells(slots: int) -> np.ndarray:
    """An empty (slots, 2) cell array in fresh anonymous memory, whose pages a
    background thread maps in ahead of the searches (otherwise each page faults when a
    search first writes it: 30 ms of a first search at 16 MiB, measured)."""
    memory = mmap.mmap(-1, slots * SLOT_BYTES)
    threading.Thread(target=_populate, args=(memory,), name="table-pages", daemon=True).start()
    return np.frombuffer(memory, dtype=np.uint64).reshape(slots, 2)


def _populate(memory: mmap.mmap) -> None:
    """Map the pages of `memory` in, a chunk at a time, giving the GIL back between
    chunks. Writes nothing: a search may use the memory meanwhile."""
    try:
        for start in range(0, len(memory), _POPULATE_CHUNK):
            memory.madvise(_POPULATE_WRITE, start, min(_POPULATE_CHUNK, len(memory) - start))
            time.sleep(0)
    except (OSError, ValueError):
        pass  # an older kernel, or the table was dropped: pages fault in as used


class ArrayTable:
    """A bounded transposition table for one game's keys, in a numpy array (`cells`)
    that a compiled search reads and writes directly. The same interface as
    `search.tt.TranspositionTable`; one search writes at a time."""

    def __init__(self, game: str, key_scheme: int, memory_bytes: int):
        self.game = game
        self.key_scheme = key_scheme
        self.memory_bytes = memory_bytes
        self.slots = capacity_for(memory_bytes, SLOT_BYTES)
        self.mask = self.slots - 1
        self.cells = _new_cells(self.slots)
        self.generation = 0

    def clear(self) -> None:
        self.cells = _new_cells(self.slots)
        self.generation = 0

    def new_search(self) -> None:
        """Age every entry by one search so that fresh entries win replacement."""
        self.generation = (self.generation + 1) & 0xFF

    def probe(self, key: int) -> int | None:
        """The packed entry stored for `key`, or None."""
        index = key & self.mask
        data = int(self.cells[index, 1])
        if data and int(self.cells[index, 0]) == key:
            return data
        return None

    def store(self, key: int, depth: int, bound: int, value: int, move: int | None) -> None:
        """Record a search result, subject to the replacement rule (in Python: the
        reference search uses it before the compiled functions are loaded)."""
        slot = self.cells[key & self.mask]
        old = int(slot[1])
        entry = replacement(int(slot[0]) if old else None, old, key, depth, bound, value, move,
                            self.generation)
        if entry is not None:
            slot[0] = key
            slot[1] = entry

    def hashfull(self) -> int:
        """Per mille of the first thousand slots used by the current search or before."""
        sample = self.cells[:1000, 1]
        return (1000 * int(np.count_nonzero(sample))) // len(sample)

    def entries(self) -> int:
        return int(np.count_nonzero(self.cells[:, 1]))

    def pairs(self) -> list[tuple[int, int]]:
        """Every (key, packed entry) held."""
        used = self.cells[self.cells[:, 1] != 0]
        return list(zip(used[:, 0].tolist(), used[:, 1].tolist()))

    def absorb(self, pairs: list[tuple[int, int]]) -> None:
        """Store (key, packed entry) pairs, as from a hash file or another table."""
        if pairs:
            keys, data = zip(*pairs)
            _store_all(self.cells, np.array(keys, dtype=np.uint64),
                       np.array(data, dtype=np.uint64), self.generation)

    def save(self, path: str) -> int:
        """Write every entry to `path` atomically; returns the number written.
        Raises HashFileError."""
        used = self.cells[self.cells[:, 1] != 0]
        write_hash_body(path, self.game, self.key_scheme, len(used), used.astype("<u8").tobytes())
        return len(used)

    def load(self, path: str) -> int:
        """Replace the contents with the entries of `path`; returns their count.
        Raises HashFileError, leaving the table as it was."""
        pairs = np.frombuffer(read_hash_body(path, self.game, self.key_scheme), dtype="<u8").reshape(-1, 2)
        self.clear()
        _store_all(self.cells, pairs[:, 0].astype(np.uint64), pairs[:, 1].astype(np.uint64),
                   self.generation)
        return len(pairs)

