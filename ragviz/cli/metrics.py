"""``ragviz metrics``: per-example metrics from the labels in the files."""

from __future__ import annotations

import argparse
import sys

from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK, add_paths, print_problems


def cmd_metrics(args: argparse.Namespace) -> int:
    if getattr(args, "family", "trace") != "trace":
        from ragviz.metrics.registry import run_family_metrics

        return run_family_metrics(args)
    from ragviz.data.load import load
    from ragviz.data.records import write_records
    from ragviz.metrics.summary import format_summary, summarize
    from ragviz.metrics.trace import TRACE_METRICS, dataset_trace_records

    result = load(args.paths)
    if not result.ok:
        print_problems(result.errors, sys.stderr)
        print(f"{len(result.errors)} errors: nothing computed (run `ragviz validate` for details)", file=sys.stderr)
        return EXIT_BAD_INPUT
    fields = [*TRACE_METRICS, "trace_mean"]
    records = list(dataset_trace_records(result.dataset))
    write_records(records, args.output, args.format)
    print(format_summary(summarize(records, fields), fields), file=sys.stderr)
    return EXIT_OK


def add_metrics_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument("-o", "--output", metavar="OUT", help="write records to OUT instead of stdout")
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl", help="record format (default: jsonl)")
    from ragviz.metrics.registry import (
        add_family_arguments,  # --family, --k (metric families)
    )

    add_family_arguments(parser)
