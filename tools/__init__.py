"""The engine's tools: the training and data pipelines (pattern data and training, books,
ProbCut fits, weights and win/draw/loss fits, tables of small parts) and the benches and
soaks that measure it, each a module run as `python -m tools.NAME` (`scripts/NAME` runs
it in the project's virtual environment; docs/tools.md lists them).

A tool may import every package of the engine; none of those imports a tool.
"""
