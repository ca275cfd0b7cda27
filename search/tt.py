"""The transposition table: a fixed number of slots, bounded in memory, kept between
searches, and saved to or loaded from a versioned hash file.

Layout: two parallel lists indexed by `key & mask`, one holding the 64-bit Zobrist key,
the other one packed int per entry (no tuple per entry, so a store allocates at most one
int). Packing, low bits first:

    value + 2**23   24 bits   the score, side to move's view (mate scores ply-free)
    depth            7 bits
    bound            2 bits   EXACT, LOWER or UPPER
    generation       8 bits   the search that wrote it, for replacement
    move + 1        23 bits   0 when there is no move

Replacement: a slot is overwritten by the same key, by an entry from an older search,
or by an entry searched at least as deep.
"""

from __future__ import annotations

import os
import struct
import zlib

from games.base import quote

EXACT, LOWER, UPPER = 0, 1, 2

VALUE_OFFSET = 1 << 23
MAX_VALUE = VALUE_OFFSET - 1
MAX_DEPTH = 127
MAX_MOVE = (1 << 23) - 2

#: Estimated bytes held per occupied slot: two list pointers and two 64-bit int objects.
ENTRY_BYTES = 96

FILE_MAGIC = b"ENGINE-TT\n"
FILE_VERSION = 1
_HEADER = struct.Struct("<10sIIQ")  # magic, format version, key scheme, entry count
_ENTRY = struct.Struct("<QQ")


class HashFileError(Exception):
    """A hash file cannot be used: unreadable (`io`) or not a valid table (`format`).

    Attributes:
        kind: "io" when the file system failed, "format" when the contents are wrong.
    """

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def capacity_for(memory_bytes: int, entry_bytes: int = ENTRY_BYTES) -> int:
    """The largest power-of-two slot count whose entries fit in `memory_bytes`."""
    slots = 1
    while slots * 2 * entry_bytes <= memory_bytes:
        slots *= 2
    return slots


class TranspositionTable:
    """A bounded transposition table for one game's keys.

    Not thread-safe for writers: one search writes at a time (a session runs at most one
    search); readers such as `hashfull` tolerate a concurrent writer.
    """

    def __init__(self, game: str, key_scheme: int, memory_bytes: int):
        self.game = game
        self.key_scheme = key_scheme
        self.memory_bytes = memory_bytes
        self.slots = capacity_for(memory_bytes)
        self.mask = self.slots - 1
        self.keys: list[int | None] = [None] * self.slots
        self.data: list[int] = [0] * self.slots
        self.generation = 0

    def clear(self) -> None:
        self.keys = [None] * self.slots
        self.data = [0] * self.slots
        self.generation = 0

    def new_search(self) -> None:
        """Age every entry by one search so that fresh entries win replacement."""
        self.generation = (self.generation + 1) & 0xFF

    def probe(self, key: int) -> int | None:
        """The packed entry stored for `key`, or None."""
        index = key & self.mask
        if self.keys[index] == key:
            return self.data[index]
        return None

    def store(self, key: int, depth: int, bound: int, value: int, move: int | None) -> None:
        """Record a search result, subject to the replacement rule."""
        index = key & self.mask
        entry = replacement(self.keys[index], self.data[index], key, depth, bound, value, move,
                            self.generation)
        if entry is not None:
            self.keys[index] = key
            self.data[index] = entry

    def hashfull(self) -> int:
        """Per mille of the first thousand slots used by the current search or before."""
        sample = self.keys[:1000]
        return (1000 * sum(1 for key in sample if key is not None)) // len(sample)

    def entries(self) -> int:
        return sum(1 for key in self.keys if key is not None)

    def save(self, path: str) -> int:
        """Write every entry to `path` atomically (see `write_hash_file`); returns the
        number written. Raises HashFileError."""
        pairs = self.pairs()
        write_hash_file(path, self.game, self.key_scheme, pairs)
        return len(pairs)

    def load(self, path: str) -> int:
        """Replace the table's contents with the entries of `path`; returns their count.

        The file must be a complete table of this game and key scheme. When it is not,
        HashFileError is raised and the table is left exactly as it was.
        """
        entries = read_hash_file(path, self.game, self.key_scheme)
        self.clear()
        self.absorb(entries)
        return len(entries)

    def pairs(self) -> list[tuple[int, int]]:
        """Every (key, packed entry) held."""
        return [(key, data) for key, data in zip(self.keys, self.data) if key is not None]

    def absorb(self, pairs: list[tuple[int, int]]) -> None:
        """Store (key, packed entry) pairs, as from a hash file or another table."""
        for key, data in pairs:
            self.store(key, (data >> 24) & 0x7F, (data >> 31) & 0x3, (data & 0xFFFFFF) - VALUE_OFFSET,
                       unpack_move(data))


def write_hash_file(path: str, game: str, key_scheme: int, pairs: list[tuple[int, int]]) -> None:
    """Write (key, packed entry) pairs as a hash file of `game` (see `write_hash_body`)."""
    write_hash_body(path, game, key_scheme, len(pairs),
                    b"".join(_ENTRY.pack(key, data) for key, data in pairs))


def write_hash_body(path: str, game: str, key_scheme: int, count: int, body: bytes) -> None:
    """Write a hash file of `game` holding `count` entries, `body` being their (key,
    packed entry) pairs as little-endian 64-bit words, atomically: the file is written
    beside `path` under a temporary name, synced, then renamed over `path`, so a crash
    never leaves a half-written table. Raises HashFileError("io")."""
    name = game.encode()
    blob = _HEADER.pack(FILE_MAGIC, FILE_VERSION, key_scheme, count) + bytes([len(name)]) + name + body
    blob += struct.pack("<I", zlib.crc32(blob))
    temporary = f"{path}.tmp{os.getpid()}"
    try:
        with open(temporary, "wb") as handle:
            handle.write(blob)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except OSError as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise HashFileError("io", f"cannot write {quote(path)}: {error.strerror}") from None


def read_hash_file(path: str, game: str, key_scheme: int) -> list[tuple[int, int]]:
    """The (key, packed entry) pairs of a hash file, checked for `game` and `key_scheme`
    (see `read_hash_body`)."""
    body = read_hash_body(path, game, key_scheme)
    return [_ENTRY.unpack_from(body, offset) for offset in range(0, len(body), _ENTRY.size)]


def read_hash_body(path: str, game: str, key_scheme: int) -> memoryview:
    """The entries of a hash file, checked for `game` and `key_scheme`, as the bytes of
    their (key, packed entry) pairs of little-endian 64-bit words.

    Raises HashFileError("io") when the file cannot be read and HashFileError("format")
    when it is not a complete, uncorrupted table of that game and key scheme.
    """
    try:
        with open(path, "rb") as handle:
            blob = handle.read()
    except OSError as error:
        raise HashFileError("io", f"cannot read {quote(path)}: {error.strerror}") from None
    if len(blob) < _HEADER.size + 1 + 4 or not blob.startswith(FILE_MAGIC):
        raise HashFileError("format", f"{quote(path)} is not a hash file")
    if zlib.crc32(blob[:-4]) != struct.unpack_from("<I", blob, len(blob) - 4)[0]:
        raise HashFileError("format", f"{quote(path)} is corrupt or truncated (checksum)")
    _, version, scheme, count = _HEADER.unpack_from(blob)
    if version != FILE_VERSION:
        raise HashFileError("format", f"{quote(path)} has format version {version}, expected {FILE_VERSION}")
    offset = _HEADER.size
    name = blob[offset + 1: offset + 1 + blob[offset]].decode("utf-8", "replace")
    offset += 1 + blob[offset]
    if name != game:
        raise HashFileError("format", f"{quote(path)} holds a {quote(name)} table, not {quote(game)}")
    if scheme != key_scheme:
        raise HashFileError("format", f"{quote(path)} has key scheme {scheme}, expected {key_scheme}")
    if offset + count * _ENTRY.size + 4 != len(blob):
        raise HashFileError("format", f"{quote(path)} is truncated: {count} entries announced")
    return memoryview(blob)[offset:offset + count * _ENTRY.size]


def peek_game(path: str) -> str:
    """The game a hash file says it holds; raises HashFileError like `read_hash_file`."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEADER.size + 256)
    except OSError as error:
        raise HashFileError("io", f"cannot read {quote(path)}: {error.strerror}") from None
    if len(head) < _HEADER.size + 1 or not head.startswith(FILE_MAGIC):
        raise HashFileError("format", f"{quote(path)} is not a hash file")
    length = head[_HEADER.size]
    return head[_HEADER.size + 1: _HEADER.size + 1 + length].decode("utf-8", "replace")


def pack(depth: int, bound: int, value: int, move: int | None, generation: int) -> int:
    """One packed entry (see the module docstring)."""
    value = max(-MAX_VALUE, min(MAX_VALUE, value))
    return (
        (value + VALUE_OFFSET)
        | min(depth, MAX_DEPTH) << 24
        | bound << 31
        | generation << 33
        | (0 if move is None else move + 1) << 41
    )


def replacement(old_key: int | None, old: int, key: int, depth: int, bound: int, value: int,
                move: int | None, generation: int) -> int | None:
    """The packed entry a slot holding `old` under `old_key` (None: empty) takes for a
    result under `key`, or None when the slot keeps its entry: the replacement rule (see
    the module docstring). A result without a move keeps the move stored for its key."""
    if old_key is not None and old_key != key:
        if (old >> 33) & 0xFF == generation and (old >> 24) & 0x7F > depth:
            return None
    if move is None and old_key == key:
        move = unpack_move(old)
    return pack(depth, bound, value, move, generation)


def unpack_move(data: int) -> int | None:
    move = data >> 41
    return move - 1 if move else None
