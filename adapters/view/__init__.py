"""How a position and its analysis are shown, shared by the web GUI, the arena and the
analysis: a board text made a view (`board`) that one script draws (`board.js`, served
by the GUI, embedded in the replay pages), the replay page of a game record
(`replay`), and the engine's view of a move with the expected points it is weighed by
(`engine`)."""
