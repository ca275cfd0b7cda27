"""The transposition table: one (slots, 2) numpy uint64 array that the search kernels
read and write directly, bounded in memory, kept between searches, and saved to or
loaded from a versioned hash file.

Each slot is a check word and a data word side by side, so a probe costs one cache miss
(16 bytes a slot). The check word is the key xor the data word, so that threads
searching at once may share one table without locks: each word is written and read
whole, but two threads storing in one slot at once may leave the check word of one and
the data word of the other, and that slot then matches no key (the entry is lost, never
misread as another position's). The data word packs, low bits first:

    value + 2**23   24 bits   the score, side to move's view (mate scores ply-free)
    depth            7 bits
    bound            2 bits   EXACT, LOWER or UPPER
    generation       8 bits   the search that wrote it, for replacement
    move + 1        23 bits   0 when there is no move

A slot is empty when its data word is 0 (a stored entry never packs to 0: its value
field is at least 1). Replacement: a slot is overwritten by the same key, by an entry
from an older search, or by an entry searched at least as deep. The last 1 / 2**BUSY_SHIFT
of the slots hold no entries: threads searching one tree mark there the moves they are
searching (`tt_busy`), and the keys that would fall there go to the slots just below
(`below_busy`). The solver's table (`search.solver`) keeps its busy area the same way,
with these kernels.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import io
import mmap
import os
import queue
import stat
import struct
import sys
import threading
import zlib
from typing import Callable, ContextManager

import numpy as np

from games.files import atomic_file
from games.text import quote
from games.kernel import interpreted, kernel

EXACT, LOWER, UPPER = 0, 1, 2

VALUE_OFFSET = 1 << 23
MAX_VALUE = VALUE_OFFSET - 1
MAX_DEPTH = 127
MAX_MOVE = (1 << 23) - 2

#: Bytes per slot: a key and a data word.
SLOT_BYTES = 16
#: The share of a table's slots (1 / 2**BUSY_SHIFT, at its end) where threads searching
#: one tree mark the moves they are searching (`tt_busy`), and which hold no entries.
BUSY_SHIFT = 6
#: The fewest slots of a table: its busy area at least one slot.
MIN_SLOTS = 1 << BUSY_SHIFT

FILE_MAGIC = b"ENGINE-TT\n"
FILE_VERSION = 1
_HEADER = struct.Struct("<10sIIQ")  # magic, format version, key scheme, entry count
#: The CRC-32 that ends a hash file.
_CHECKSUM = struct.Struct("<I")


class HashFileError(Exception):
    """A hash file cannot be used or written.

    Attributes:
        kind: `missing` when there is no regular file to read at the path, `io` when the
            file system failed, `format` when the contents are wrong, `stopped` when the
            job was halted before the end; `name` and `full` are the daemon's refusals of
            a name and of a file its hash directory has no room for
            (`daemon.hashfiles`).
    """

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def capacity_for(memory_bytes: int, slot_bytes: int = SLOT_BYTES) -> int:
    """The largest power-of-two count of slots of `slot_bytes` that fits in `memory_bytes`
    (at least 1)."""
    slots = 1
    while slots * 2 * slot_bytes <= memory_bytes:
        slots *= 2
    return slots


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
def bound_decides(bound, value, alpha, beta):
    """Whether a stored `value` of bound `bound` (EXACT, LOWER or UPPER) answers a search
    in the window (alpha, beta)."""
    return bound == EXACT or (bound == LOWER and value >= beta) or (bound == UPPER and value <= alpha)


@kernel(inline=True)
def below_busy(rows, slot):
    """`slot` (an int64 row of `rows`, a table whose last 1 / 2**BUSY_SHIFT of rows are
    its busy area: `tt_busy`) moved below the busy area where it falls in it: the slot
    of an entry, in the transposition table and the solver's."""
    busy = len(rows) >> BUSY_SHIFT
    if slot >= len(rows) - busy:
        slot -= busy
    return slot


@kernel(inline=True)
def tt_slot(cells, key):
    """The slot of `key`'s entry: its low bits, moved below the busy area (`tt_busy`)
    where they fall in it; unsigned, so that indexing with it checks no sign."""
    return np.uint64(below_busy(cells, np.int64(key & np.uint64(len(cells) - 1))))


@kernel(inline=True)
def tt_probe(cells, key):
    """The packed entry stored for `key`, 0 when there is none (or the slot's words
    are of two stores: see the module docstring)."""
    index = tt_slot(cells, key)
    data = cells[index, 1]
    if cells[index, 0] ^ data == key:
        return data
    return _U0


@kernel
def tt_store(cells, key, depth, bound, value, move, generation):
    """Record a search result under the replacement rule; `move` -1 is none
    (the slot's move for the same key is then kept)."""
    index = tt_slot(cells, key)
    old = cells[index, 1]
    same = cells[index, 0] ^ old == key and old != _U0
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
    data = (
        np.uint64(value + VALUE_OFFSET)
        | (np.uint64(depth) << _S24)
        | (np.uint64(bound) << _S31)
        | (np.uint64(generation) << _S33)
        | (np.uint64(move + 1) << _S41)
    )
    cells[index, 0] = key ^ data
    cells[index, 1] = data


#: A move's mark is its parent's key xor the move times this odd constant.
MOVE_SPREAD = np.uint64(0x9E3779B97F4A7C15)
#: The mark of no move (a node that marks nothing).
NO_MARK = _U0
#: With other threads searching the same tree, the nodes this many plies from the
#: leaves or more search last the moves another thread is searching (`tt_busy`).
DEFER_DEPTH = 3


@kernel(inline=True)
def move_mark(key, move):
    """The mark of `move` searched from the position of `key` (`tt_busy`)."""
    return key ^ (np.uint64(move + 1) * MOVE_SPREAD)


@kernel(inline=True)
def _busy_slot(rows, mark):
    return len(rows) - 1 - (mark & ((len(rows) >> BUSY_SHIFT) - 1))


@kernel(inline=True)
def tt_busy(rows, mark):
    """Whether another thread is searching the move of `mark` (`move_mark`) now.

    Threads searching one tree (Threads) mark the moves they search in the last
    1 / 2**BUSY_SHIFT of the table's slots, where no entry is stored (`below_busy`), a
    mark as a check word (column 0) with the rest of the row 0, so that every reader
    of entries takes it for an empty slot; two marks of one slot cost only the first.
    A thread searches a move another one is searching after its other moves
    (simplified ABDADA), so that the threads share out the tree. (Marks among the
    entries were overwritten by them within moments of a search, and a kept table left
    no room for them at all.) `rows` is the transposition table's cells (uint64 marks)
    or the solver's table (int64 marks): these kernels serve both."""
    return rows[_busy_slot(rows, mark), 0] == mark


@kernel(inline=True)
def tt_mark(rows, mark):
    """Mark the move of `mark` as searched now (`tt_busy`)."""
    rows[_busy_slot(rows, mark), 0] = mark


@kernel(inline=True)
def tt_unmark(rows, mark):
    """Clear the mark `mark` if its slot still holds it."""
    slot = _busy_slot(rows, mark)
    if rows[slot, 0] == mark:
        rows[slot, 0] = 0


@kernel(inline=True)
def tt_claim(rows, mark, may_defer):
    """Whether this thread searches the move of `mark` now: not where `may_defer` and
    another thread is searching it (`tt_busy`); else it is marked (`tt_mark`)."""
    if may_defer and tt_busy(rows, mark):
        return False
    tt_mark(rows, mark)
    return True


@kernel(inline=True)
def next_move(moves, first, count, later, i, taken, deferred):
    """The next move of a node whose threads may defer moves (`tt_busy`): its moves
    moves[first + i] while i < count, then the moves it deferred, moves[later + taken]
    while taken < deferred (a node keeps them from moves[later] on as it defers them,
    where the slots are spent). Returns (whether there is one, the move, i, taken), i or
    taken past it. Every search that defers moves walks its moves so (offsets, not
    slices: a slice a node cost 5% of one game's node rate)."""
    if i < count:
        return True, moves[first + i], i + 1, taken
    if taken < deferred:
        return True, moves[later + taken], i, taken + 1
    return False, np.int64(-1), i, taken


@kernel
def _store_all(cells, pair_keys, pair_data, generation):
    for i in range(len(pair_keys)):
        entry = pair_data[i]
        tt_store(cells, pair_keys[i], entry_depth(entry), entry_bound(entry),
                 entry_value(entry), entry_move(entry), generation)


#: madvise(MADV_POPULATE_WRITE), Linux 5.14 and later: map pages without touching them.
_POPULATE_WRITE = 23
#: Bytes mapped per madvise call: the call holds the process's memory map lock, which
#: creating or dropping another table waits for.
_POPULATE_CHUNK = 1 << 20


def _libc_madvise() -> ctypes._CFuncPtr | None:
    """libc's madvise, called through ctypes so that the call runs without the GIL
    (mmap.madvise holds it: populating the tables of busy sessions held the GIL for two
    thirds of the time, and every other session's replies waited), or None."""
    try:
        function = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    function.restype = ctypes.c_int
    return function


_MADVISE = _libc_madvise()


def _new_cells(slots: int, mapped: threading.Event) -> np.ndarray:
    """An empty (slots, 2) cell array in `fresh_memory`."""
    return np.frombuffer(fresh_memory(slots * SLOT_BYTES, mapped), dtype=np.uint64).reshape(slots, 2)


def fresh_memory(size: int, mapped: threading.Event | None = None) -> mmap.mmap:
    """`size` bytes of zeroed anonymous memory, whose pages a background thread maps in
    ahead of the searches (otherwise each page faults when a search first writes it: 30
    ms of a first search at 16 MiB, measured); `mapped` is set when it is done."""
    memory = mmap.mmap(-1, size)
    _populating().put((memory, mapped or threading.Event()))
    return memory


_populate_queue: queue.SimpleQueue | None = None
_populate_guard = threading.Lock()


def _populating() -> queue.SimpleQueue:
    """The queue of the one thread that maps in new tables' pages, started on first use
    (a thread per table made every new session's table cost a thread start to whoever
    asked for it: the event loop)."""
    global _populate_queue
    with _populate_guard:
        if _populate_queue is None:
            _populate_queue = queue.SimpleQueue()
            threading.Thread(target=_populate_forever, args=(_populate_queue,), name="table-pages",
                             daemon=True).start()
        return _populate_queue


def _populate_forever(work: queue.SimpleQueue) -> None:
    """Map in each table's pages in turn, and set its `mapped` event when done."""
    while True:
        memory, mapped = work.get()
        try:
            # A table dropped before its turn (only this thread still holds its memory)
            # is not mapped in: it is unmapped here instead.
            if sys.getrefcount(memory) > 2:
                _populate(memory)
        finally:
            mapped.set()
            del memory


def _populate(memory: mmap.mmap) -> None:
    """Map the pages of `memory` in, a chunk at a time, without holding the GIL. Writes
    nothing: a search may use the memory meanwhile."""
    if _MADVISE is None:
        return
    try:
        view = (ctypes.c_char * len(memory)).from_buffer(memory)
    except (ValueError, TypeError):
        return
    try:
        base = ctypes.addressof(view)
        for start in range(0, len(memory), _POPULATE_CHUNK):
            if _MADVISE(base + start, min(_POPULATE_CHUNK, len(memory) - start), _POPULATE_WRITE) != 0:
                break  # an older kernel: pages fault in as used
    finally:
        del view


class TranspositionTable:
    """A bounded transposition table for one game's keys, in a numpy array (`cells`)
    that the search kernels read and write directly.

    One search writes at a time (a session runs at most one), from one thread or from
    several (`Threads`: the check words keep their entries whole); readers such as
    `hashfull` tolerate concurrent writers.
    """

    def __init__(self, game: str, key_scheme: int, memory_bytes: int):
        self.game = game
        self.key_scheme = key_scheme
        self.memory_bytes = memory_bytes
        self.slots = max(MIN_SLOTS, capacity_for(memory_bytes))
        self._mapped = threading.Event()
        self.cells = _new_cells(self.slots, self._mapped)
        self.generation = 0

    def clear(self) -> None:
        self._mapped = threading.Event()
        self.cells = _new_cells(self.slots, self._mapped)
        self.generation = 0

    def wait_mapped(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds until the memory of the cells is mapped in;
        whether it is. (A search need not wait: it faults the pages in as it goes.)"""
        return self._mapped.wait(timeout)

    def new_search(self) -> None:
        """Age every entry by one search so that fresh entries win replacement."""
        self.generation = (self.generation + 1) & 0xFF

    def probe(self, key: int) -> int | None:
        """The packed entry stored for `key`, or None. Interpreted: a call of a compiled
        kernel from Python would load numba's machinery (0.4 s) into a Python-core
        search that runs while the compiled code loads."""
        index = int(interpreted(tt_slot)(self.cells, np.uint64(key)))
        data = int(self.cells[index, 1])
        if data and int(self.cells[index, 0]) ^ data == key:
            return data
        return None

    def hashfull(self) -> int:
        """Per mille of the first thousand slots used by the current search or before."""
        sample = self.cells[:1000, 1]
        return (1000 * int(np.count_nonzero(sample))) // len(sample)

    def entries(self) -> int:
        return int(np.count_nonzero(self.cells[:, 1]))

    def pairs(self) -> list[tuple[int, int]]:
        """Every (key, packed entry) held."""
        used = self._used()
        return list(zip(used[:, 0].tolist(), used[:, 1].tolist()))

    def _used(self) -> np.ndarray:
        """The (key, packed entry) rows of the used slots: the keys as plain keys, not
        check words (the form of hash files, which stay readable across versions)."""
        used = self.cells[self.cells[:, 1] != 0]
        used[:, 0] ^= used[:, 1]
        return used

    def absorb(self, keys: np.ndarray, entries: np.ndarray) -> None:
        """Store packed entries under their keys (np.uint64 arrays of one length), as a
        search would, replacing as it would."""
        _store_all(self.cells, keys.astype(np.uint64), entries.astype(np.uint64), self.generation)

    def save(self, path: str, halt: threading.Event | None = None, label: str | None = None,
             room: Callable[[int], ContextManager[object]] | None = None) -> int:
        """Write every entry to `path` atomically (`games.files.atomic_file`); returns the
        number written. Raises HashFileError, leaving any file at `path` as it was:
        `stopped` when `halt` was set before the end, or what `room` raises (see
        `write_hash_file`). Messages name the file `label` (by default its path)."""
        used = self._used()
        write_hash_file(path, self.game, self.key_scheme, used.astype("<u8", copy=False), halt, label, room)
        return len(used)

    def load(self, path: str, halt: threading.Event | None = None, max_entries: int | None = None,
             follow_links: bool = True, label: str | None = None) -> int:
        """Replace the contents with the entries of `path`; returns their count.

        The entries go into new cells, which replace the table's only once the whole
        file has checked out, so any HashFileError leaves the table as it was: `missing`
        when `path` is no regular file to read (or a link, unless `follow_links`), `io`
        when reading fails, `format` when it is no table of this game or holds more than
        `max_entries`, `stopped` when `halt` was set before the end. Messages name the
        file `label` (by default its path)."""
        mapped = threading.Event()
        cells = _new_cells(self.slots, mapped)
        count = read_hash_file(path, self.game, self.key_scheme, cells, self.generation, halt,
                               max_entries, follow_links, label)
        self.cells, self._mapped = cells, mapped
        return count


#: Bytes written or read at a time, between looks at the halt event.
CHUNK_BYTES = 1 << 22


def _halted(halt: threading.Event | None, label: str) -> None:
    if halt is not None and halt.is_set():
        raise HashFileError("stopped", f"stopped before {quote(label)} was done")


def _file_bytes(header: bytes, count: int) -> int:
    """The size of a hash file with `header` and `count` entries."""
    return len(header) + count * SLOT_BYTES + _CHECKSUM.size


def write_hash_file(path: str, game: str, key_scheme: int, pairs: np.ndarray,
                    halt: threading.Event | None = None, label: str | None = None,
                    room: Callable[[int], ContextManager[object]] | None = None) -> None:
    """Write a hash file of `game` holding `pairs`, its (key, packed entry) rows of
    little-endian 64-bit words, atomically (`games.files.atomic_file`): a crash or a
    halt never leaves a half-written table at `path`. `room`, if given, is entered
    with the file's size in bytes before anything is written, and left once the file
    is in place or the write has failed; it refuses the write by raising, which
    leaves everything as it was. Raises HashFileError (`io`, `stopped`, or what `room`
    raises), naming the file `label` (by default its path)."""
    label = label or path
    name = game.encode()
    header = _HEADER.pack(FILE_MAGIC, FILE_VERSION, key_scheme, len(pairs)) + bytes([len(name)]) + name
    body = memoryview(np.ascontiguousarray(pairs).view(np.uint8).reshape(-1))
    with room(_file_bytes(header, len(pairs))) if room is not None else contextlib.nullcontext():
        try:
            with atomic_file(path) as out:
                out.write(header)
                checksum = zlib.crc32(header)
                for start in range(0, len(body), CHUNK_BYTES):
                    _halted(halt, label)
                    chunk = body[start:start + CHUNK_BYTES]
                    out.write(chunk)
                    checksum = zlib.crc32(chunk, checksum)
                out.write(_CHECKSUM.pack(checksum))
        except OSError as error:
            raise HashFileError("io", f"cannot write {quote(label)}: {error.strerror}") from None


def _open_regular(path: str, follow_links: bool, label: str) -> tuple[io.BufferedReader, int]:
    """A regular file opened for reading, and its size. A FIFO or a device is refused
    without ever blocking: the open does not wait for a writer, and nothing is read
    before the file is known to be regular. Raises HashFileError(`missing`, `io`)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= os.O_NOFOLLOW
    try:
        handle = os.open(path, flags)
    except OSError as error:
        kind = "missing" if error.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP) else "io"
        raise HashFileError(kind, f"cannot read {quote(label)}: {error.strerror}") from None
    status = os.fstat(handle)
    if not stat.S_ISREG(status.st_mode):
        os.close(handle)
        raise HashFileError("missing", f"cannot read {quote(label)}: not a regular file")
    return os.fdopen(handle, "rb"), status.st_size


def _read_header(handle: io.BufferedReader, label: str) -> tuple[int, int, str, bytes]:
    """(key scheme, entry count, game, the header's bytes) of an open hash file."""
    head = handle.read(_HEADER.size + 1)
    if len(head) < _HEADER.size + 1 or not head.startswith(FILE_MAGIC):
        raise HashFileError("format", f"{quote(label)} is not a hash file")
    _, version, scheme, count = _HEADER.unpack_from(head)
    if version != FILE_VERSION:
        raise HashFileError("format", f"{quote(label)} has format version {version}, expected {FILE_VERSION}")
    name = handle.read(head[_HEADER.size])
    if len(name) != head[_HEADER.size]:
        raise HashFileError("format", f"{quote(label)} is truncated in its header")
    return scheme, count, name.decode("utf-8", "replace"), head + name


def read_hash_file(path: str, game: str, key_scheme: int, cells: np.ndarray, generation: int,
                   halt: threading.Event | None = None, max_entries: int | None = None,
                   follow_links: bool = True, label: str | None = None) -> int:
    """Store the entries of the hash file `path` into `cells` (as `tt_store` would, at
    `generation`); their count. The header, and the file's size against the entry
    count it states, are checked before any entry is read; the body is read a chunk at a
    time, so memory stays at one chunk whatever the file.

    Raises HashFileError: `missing` (no regular file at `path`), `io` (reading failed),
    `format` (not a complete, uncorrupted table of `game` and `key_scheme` with at most
    `max_entries` entries), `stopped` (`halt` was set). `cells` may then hold part of
    the file. Messages name the file `label` (by default its path)."""
    label = label or path
    handle, size = _open_regular(path, follow_links, label)
    try:
        with handle:
            scheme, count, name, header = _read_header(handle, label)
            if name != game:
                raise HashFileError("format", f"{quote(label)} holds a {quote(name)} table, not {quote(game)}")
            if scheme != key_scheme:
                raise HashFileError("format", f"{quote(label)} has key scheme {scheme}, expected {key_scheme}")
            if max_entries is not None and count > max_entries:
                raise HashFileError("format", f"{quote(label)} holds {count} entries, more than the"
                                              f" {max_entries} the hash budget allows")
            expected = _file_bytes(header, count)
            if size < expected:
                raise HashFileError("format", f"{quote(label)} is truncated: {count} entries announced take"
                                              f" {expected} bytes, the file has {size}")
            if size > expected:
                raise HashFileError("format", f"{quote(label)} has {size - expected} bytes after its end:"
                                              f" {count} entries announced take {expected} bytes, the file"
                                              f" has {size}")
            checksum = zlib.crc32(header)
            chunk = bytearray(CHUNK_BYTES)
            left = count * SLOT_BYTES
            while left:
                _halted(halt, label)
                view = memoryview(chunk)[:min(left, CHUNK_BYTES)]
                if handle.readinto(view) != len(view):
                    raise HashFileError("format", f"{quote(label)} is truncated: {count} entries announced")
                checksum = zlib.crc32(view, checksum)
                pairs = np.frombuffer(view, dtype="<u8").reshape(-1, 2)
                _store_all(cells, pairs[:, 0].astype(np.uint64), pairs[:, 1].astype(np.uint64), generation)
                left -= len(view)
            trailer = handle.read(_CHECKSUM.size)
    except OSError as error:
        raise HashFileError("io", f"cannot read {quote(label)}: {error.strerror}") from None
    if len(trailer) != _CHECKSUM.size or _CHECKSUM.unpack(trailer)[0] != checksum:
        raise HashFileError("format", f"{quote(label)} is corrupt or truncated (checksum)")
    return count


def peek_game(path: str, follow_links: bool = True, label: str | None = None) -> str:
    """The game a hash file says it holds; raises HashFileError like `read_hash_file`."""
    label = label or path
    handle, _ = _open_regular(path, follow_links, label)
    try:
        with handle:
            return _read_header(handle, label)[2]
    except OSError as error:
        raise HashFileError("io", f"cannot read {quote(label)}: {error.strerror}") from None


def unpack_move(data: int) -> int | None:
    """The move of a packed entry, None when it has none."""
    move = data >> 41
    return move - 1 if move else None
