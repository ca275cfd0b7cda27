"""Whole-game analysis: `engine-analyse` (see `adapters.analysis.main`)."""
