"""Othello compiled with numba: the kernels of `games.othello`."""
