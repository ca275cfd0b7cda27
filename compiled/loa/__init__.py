"""Lines of Action compiled with numba: the kernels mirroring `games.loa`."""
