"""Lines of Action in records (`records`): SGF's number of the game."""

#: SGF's number of the game (GM[9]).
SGF_NUMBER = 9
#: No format of the game's own beside SGF.
FORMATS: dict = {}
