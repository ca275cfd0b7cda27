"""The applications built on the engine, each standing apart: the CodinGame bot
`engine-cg` with the example bots (`bot`), the local arena and self-play (`arena`), the
whole-game analysis (`analysis`) and the web GUI (`gui`, which also shows analyses).

They share, and import no application in: each game's CodinGame turn text and board
style (`codingame`), how a position and its analysis are shown (`view`: the board
drawing and the replay page) and where games or positions run in parallel (`pool`).
"""
