"""``ragviz validate``: load errors and the label-quality report; RagChecker checking-output files are checked as
the Claims page reads them (claims and label matrices)."""

from __future__ import annotations

import argparse
import sys

from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK, add_paths, errors, print_problems

__all__ = ["add_validate_arguments", "cmd_validate"]


def cmd_validate(args: argparse.Namespace) -> int:
    from ragviz.analysis.quality.issues import (
        ISSUE_DESCRIPTIONS,
        MECHANICAL_KINDS,
        label_issues,
    )
    from ragviz.analysis.quality.scan import dotted_key_matches, scan_dataset
    from ragviz.data.formats.ragchecker import is_ragchecker_file
    from ragviz.data.load import load

    checker_paths = [p for p in args.paths if is_ragchecker_file(p)]
    checker_ok = _validate_ragchecker(checker_paths)
    paths = [p for p in args.paths if p not in checker_paths]
    if not paths:
        return EXIT_OK if checker_ok else EXIT_BAD_INPUT
    result = load(paths)
    print_problems(result.errors, sys.stdout)
    print_problems(result.warnings, sys.stdout)
    scan = scan_dataset(result.dataset)
    if args.verbose:
        for i in scan.flagged_rows:
            print_problems(label_issues(result.dataset.example(i)), sys.stdout)
    empty = result.ok and len(result.dataset) == 0  # a zero-row Parquet file, "[]": nothing a page could show
    if empty:
        print(f"{', '.join(paths)}: no examples in it", file=sys.stdout)
    status = "ok" if result.ok and not empty else "NOT loadable"
    print(
        f"{len(result.dataset)} examples loaded, {errors(len(result.errors))}, {len(result.warnings)} load warnings, "
        f"{len(scan.flagged_rows)} examples with label-quality flags: {status}",
        file=sys.stderr,
    )
    for kind, count in sorted(scan.issue_counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if count:
            fix = " (normalize fixes)" if kind in MECHANICAL_KINDS else ""
            print(
                f"  {count:6d} in {scan.example_counts[kind]:5d} examples: {ISSUE_DESCRIPTIONS[kind]}{fix}",
                file=sys.stderr,
            )
    dotted, dotted_examples = dotted_key_matches(result.dataset)
    if dotted:
        print(
            f"  {dotted:6d} in {dotted_examples:5d} examples: response sentence key with a trailing dot ('a.'),"
            " matched to its sentence on loading ('a')",
            file=sys.stderr,
        )
    if scan.flagged_rows and not args.verbose:
        print("  (run with --verbose to list every flag as PATH:ROW: field: problem)", file=sys.stderr)
    return EXIT_OK if result.ok and not empty and checker_ok else EXIT_BAD_INPUT


def _validate_ragchecker(paths: list[str]) -> bool:
    """Check RagChecker checking-output files (claims and their four label matrices) as the Claims page
    and ``ragviz metrics --family ragchecker`` read them; print every problem; True when all load."""
    from ragviz.data.formats.ragchecker import RagCheckerFormatError, read_ragchecker

    ok = True
    for path in paths:
        try:
            loaded = read_ragchecker(path)
        except RagCheckerFormatError as exc:
            ok = False
            for p in exc.problems:
                print(str(p), file=sys.stdout)
            print(f"{path}: RagChecker checking output with {errors(len(exc.problems))}: NOT loadable", file=sys.stderr)
            continue
        for w in loaded.warnings:
            print(str(w), file=sys.stdout)
        print(
            f"{path}: RagChecker checking output, {len(loaded.items)} items loaded, "
            f"{len(loaded.warnings)} warnings: ok",
            file=sys.stderr,
        )
    return ok


def add_validate_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="list every label-quality flag, not just counts")
