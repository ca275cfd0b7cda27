"""Game records: a tree of moves with variations, comments, glyphs and shapes
(`records.tree`), and the formats it is read from and written to (`records.sgf`)."""
