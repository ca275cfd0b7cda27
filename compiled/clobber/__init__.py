"""Clobber compiled with numba: the kernels of `games.clobber`."""
