"""Othello's compiled kernels (see `compiled.othello.kernels`)."""
