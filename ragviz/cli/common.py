"""What every ragviz command shares: exit codes, the PATH arguments, problem printing."""

from __future__ import annotations

import argparse

EXIT_OK = 0


EXIT_BAD_INPUT = 2


def add_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="data files (.parquet, .jsonl, .json, .csv) or directories of Parquet shards",
    )


def print_problems(problems, stream) -> None:
    for p in problems:
        print(str(p), file=stream)
