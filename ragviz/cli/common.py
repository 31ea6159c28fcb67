"""What every ragviz command shares: exit codes, the PATH arguments, problem printing."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TextIO

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "IDENTITY_OPTIONS", "add_paths", "fold_identities", "print_problems"]


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


# Options that name a person (--against NAME, --annotator NAME, --leave NAME, --by NAME): folded as the store
# names people, so `--annotator Ana@X.org` is ana@x.org (ragviz.data.roles.identity_name).
IDENTITY_OPTIONS = ("against", "annotator", "leave", "by")


def fold_identities(args: argparse.Namespace) -> argparse.Namespace:
    """*args* with every person-naming option (:data:`IDENTITY_OPTIONS`) as the store names people.

    >>> fold_identities(argparse.Namespace(against="Ana@X.org", by=None, paths=["A@B"])).against
    'ana@x.org'
    """
    from ragviz.data.roles import identity_name

    for name in IDENTITY_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value.strip():
            setattr(args, name, identity_name(value))
    return args
