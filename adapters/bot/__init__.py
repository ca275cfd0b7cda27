"""`engine-cg`: the CodinGame bot that lets the engine choose its moves (`main`, `player`,
the engine session `link` and the turn budget `timing`), and the example bots (`bots`)."""
