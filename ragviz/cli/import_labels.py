"""``ragviz import-labels``: people's labels made elsewhere become one annotator's decisions
(:mod:`ragviz.analysis.team.imports`)."""

from __future__ import annotations

import argparse
import sys

from ragviz.cli.common import EXIT_OK, add_db_argument, errors, open_store, warn_load
from ragviz.data.errors import BadInput

__all__ = ["COMMAND", "add_import_arguments", "run_import_command"]


COMMAND = "ragviz import-labels"


def add_import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="labelled rows (RAGBench-shaped files, a ragviz export)"
    )
    add_db_argument(parser, purpose="the annotator's decisions are written here")
    parser.add_argument("--annotator", metavar="NAME", required=True, help="whose labels these are")
    parser.add_argument(
        "--data",
        metavar="DATA",
        nargs="+",
        default=None,
        help="the loaded data the rows are checked against (default: the files registered in the store)",
    )


def run_import_command(args: argparse.Namespace) -> int:
    from ragviz.analysis.team.imports import import_labels
    from ragviz.data.load import load

    with open_store(args.db, command=COMMAND, create=bool(args.data)) as store:
        paths = args.data or store.sources.registered()
        if not paths:
            raise BadInput(
                "no loaded data to check the rows against: give --data DATA or open it in the app", path=COMMAND
            )
        loaded = load(paths)
        if not loaded.ok:
            raise BadInput(f"{errors(len(loaded.errors))} in the data: nothing imported", listed=loaded.errors)
        warn_load(loaded.warnings)
        done = import_labels(store, loaded.dataset, args.files, args.annotator.strip())
    print(
        f"imported {done.n_rows:,} rows as {args.annotator.strip()}'s decisions ({done.n_changed:,} differ from the"
        " labels they replace)",
        file=sys.stderr,
    )
    return EXIT_OK
