"""``ragviz convert``: any input ragviz reads, as RAGBench rows or a Ragas / DeepEval / RagChecker dataset."""

from __future__ import annotations

import argparse
import sys

from ragviz.cli.common import EXIT_OK
from ragviz.cli.common import errors as count_errors
from ragviz.data.errors import BadInput

__all__ = ["COMMAND", "add_convert_arguments", "convert_command", "run_convert_command"]


COMMAND = "ragviz convert"


def convert_command(paths: list[str], out: str, to: str, fmt: str | None = None, card: bool = False) -> int:
    """Load *paths* (every format ragviz reads) and write them to *out* in the shape *to*, with the rows'
    own labels (no label store). An input that does not load raises :class:`BadInput` listing every
    problem as ``PATH:ROW: field: problem`` (nothing is written then; ``ragviz`` exits 2); a row left out as a
    repeat of an earlier row's example is named on stderr."""
    from ragviz.data.load import load
    from ragviz.export.files import FORMATS
    from ragviz.export.targets import TARGETS, Target, format_from_name, write_target

    if to not in TARGETS:
        raise BadInput(f"unknown target {to!r} (choose from {', '.join(TARGETS)})", path=COMMAND)
    fmt = fmt or format_from_name(out)
    if fmt not in FORMATS or (to == "ragbench" and fmt == "csv"):
        raise BadInput(f"RAGBench rows are written as jsonl or parquet, not {fmt!r}", path=COMMAND)
    loaded = load(paths)
    if loaded.errors:
        raise BadInput(f"{count_errors(len(loaded.errors))} in the input: nothing converted", listed=loaded.errors)
    target = Target(out, fmt, to, card)
    n_rows, _, written = write_target(loaded.dataset, None, None, target)
    for skipped in [w for w in loaded.warnings if w.field == "id" and (w in loaded.duplicates or w.row is None)]:
        print(skipped, file=sys.stderr)  # a row left out of OUT (and the count past those listed), not only in validate
    print(f"converted {n_rows} examples to {written} ({target.describe()})", file=sys.stderr)
    return EXIT_OK


def add_convert_arguments(parser: argparse.ArgumentParser) -> None:
    from ragviz.cli.export import add_target_arguments

    parser.add_argument(
        "paths",
        nargs="+",
        metavar="IN",
        help="input files or directories (.parquet, .jsonl, .json, .csv, save_to_disk folders, RagChecker JSON)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        required=True,
        help="file to write ('-' for stdout; with --to ragbench a directory, existing or ending in /: Parquet with a "
        "dataset card)",
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "parquet"),
        default=None,
        help="with --to ragbench: jsonl or parquet (default: from OUT's extension, else jsonl)",
    )
    add_target_arguments(parser)


def run_convert_command(args: argparse.Namespace) -> int:
    return convert_command(args.paths, args.output, args.to, args.format, args.card)
