"""``ragviz convert``: any input ragviz reads, as RAGBench rows or a Ragas / DeepEval / RagChecker dataset."""

from __future__ import annotations

import argparse
import sys

from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK

__all__ = ["add_convert_arguments", "convert_command", "run_convert_command"]


def convert_command(paths: list[str], out: str, to: str, fmt: str | None = None, card: bool = False) -> int:
    """Load *paths* (every format ragviz reads, problems printed as ``PATH:ROW: field: problem``) and
    write them to *out* in the shape *to*, with the rows' own labels (no label store). Exit 2 when an
    input does not load (nothing is written then)."""
    from ragviz.cli.export import FORMATS, TARGETS, Target, format_from_name, load_sources, write_target

    if to not in TARGETS:
        print(f"ragviz convert: unknown target {to!r} (choose from {', '.join(TARGETS)})", file=sys.stderr)
        return EXIT_BAD_INPUT
    fmt = fmt or format_from_name(out)
    if fmt not in FORMATS or (to == "ragbench" and fmt == "csv"):
        print(f"ragviz convert: RAGBench rows are written as jsonl or parquet, not {fmt!r}", file=sys.stderr)
        return EXIT_BAD_INPUT
    dataset, errors = load_sources(paths)
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        print(f"{len(errors)} errors in the input: nothing converted", file=sys.stderr)
        return EXIT_BAD_INPUT
    target = Target(out, fmt, to, card)
    n_rows, _, written = write_target(dataset, None, None, target)
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
        help="file to write ('-' for stdout; with --to ragbench a directory: Parquet with a dataset card)",
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
