"""Abalone's compiled kernels (`kernels.py`) and its generated searches."""
