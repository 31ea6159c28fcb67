"""The ``ragviz`` command line: one module per command, wired by :mod:`ragviz.cli.main`."""

from ragviz.cli.main import main

__all__ = ["main"]
