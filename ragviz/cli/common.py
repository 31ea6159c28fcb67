"""What every ragviz command shares: exit codes, the PATH arguments, problem printing."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TextIO

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "add_paths", "errors", "print_problems"]


EXIT_OK = 0


EXIT_BAD_INPUT = 2


def add_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="data files (.parquet, .jsonl, .json, .csv) or directories of Parquet shards",
    )


def print_problems(problems: Iterable[object], stream: TextIO) -> None:
    for p in problems:
        print(str(p), file=stream)


def errors(n: int) -> str:
    """``"1 error"``, ``"3 errors"``: the count that opens a command's bad-input line.

    >>> errors(1), errors(2)
    ('1 error', '2 errors')
    """
    return f"{n:,} error" + ("" if n == 1 else "s")
