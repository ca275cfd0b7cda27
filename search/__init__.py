"""Generic searches over the `games.base` protocols.

Nothing here prints, reads input or knows a game's name: a search is a generator of
structured `SearchReport`s, driven by whoever owns the I/O.
"""
