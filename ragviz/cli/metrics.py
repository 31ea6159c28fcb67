"""``ragviz metrics``: per-example metrics from the labels in the files."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from ragviz.cli.common import EXIT_BAD_INPUT, EXIT_OK, add_paths, errors, print_problems, warn_load
from ragviz.metrics.registry import FAMILY_NAMES, all_fields, dataset_all_records, dataset_family_records, family_fields
from ragviz.metrics.retrieval import DEFAULT_KS
from ragviz.metrics.trace import TRACE_METRICS

__all__ = ["add_family_arguments", "add_metrics_arguments", "cmd_metrics", "no_family_labels", "run_family_metrics"]


def cmd_metrics(args: argparse.Namespace) -> int:
    if args.output not in (None, "-"):
        from ragviz.export.output import checked_target

        checked_target(args.output)  # an OSError naming OUT, before any work
    if getattr(args, "family", "trace") != "trace":
        return run_family_metrics(args)
    from ragviz.data.load import load
    from ragviz.export.records import write_records
    from ragviz.metrics.summary import format_summary, summarize
    from ragviz.metrics.trace import dataset_trace_records

    streamed = _streamed_trace(args)
    if streamed is not None:
        return streamed
    result = load(args.paths)
    if not result.ok:
        print_problems(result.errors, sys.stderr)
        print(f"{errors(len(result.errors))}: nothing computed (run `ragviz validate` for details)", file=sys.stderr)
        return EXIT_BAD_INPUT
    warn_load(result.warnings)
    fields = [*TRACE_METRICS, "trace_mean"]
    records = list(dataset_trace_records(result.dataset))
    write_records(records, args.output, args.format)
    print(format_summary(summarize(records, fields), fields), file=sys.stderr)
    return EXIT_OK


def _streamed_trace(args: argparse.Namespace) -> int | None:
    """TRACe records of Parquet files a record batch at a time (:mod:`ragviz.data.stream`), so the
    rows never sit in memory all at once; ``None`` when some input is not Parquet (the caller loads
    them whole). The records go to a temporary file first: on bad input nothing is written."""
    import io
    import os
    import shutil
    import tempfile

    from ragviz.data.problems import Report
    from ragviz.data.stream import parquet_batches, parquet_only
    from ragviz.export.records import write_csv, write_jsonl
    from ragviz.metrics.summary import format_summary, summarize
    from ragviz.metrics.trace import dataset_trace_records

    report = Report()
    files = parquet_only(args.paths, report)
    if files is None:
        return None
    from ragviz.export.output import checked_target

    fields = [*TRACE_METRICS, "trace_mean"]
    out_dir = str(checked_target(args.output).resolve().parent) if args.output not in (None, "-") else None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".ragviz-metrics.", suffix=".tmp", dir=out_dir)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, args.output) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:

            def written() -> Iterator[dict[str, Any]]:
                header = True
                for part in parquet_batches(files, report):
                    records = list(dataset_trace_records(part))
                    if args.format == "csv":
                        if records:
                            buf = io.StringIO()
                            write_csv(records, buf)  # the same columns every batch: one header
                            f.write(buf.getvalue() if header else buf.getvalue().split("\n", 1)[1])
                            header = False
                    else:
                        write_jsonl(records, f)
                    yield from records

            summaries = summarize(written(), fields)
        report.finish()
        if report.errors:
            print_problems(report.errors, sys.stderr)
            print(
                f"{errors(len(report.errors))}: nothing computed (run `ragviz validate` for details)", file=sys.stderr
            )
            return EXIT_BAD_INPUT
        warn_load(report.warnings)
        if out_dir is None:
            with open(tmp, encoding="utf-8", newline="") as f:
                shutil.copyfileobj(f, sys.stdout)
            sys.stdout.flush()
        else:
            try:
                os.replace(tmp, args.output)
            except OSError as exc:
                raise OSError(exc.errno, exc.strerror, args.output) from None
        print(format_summary(summaries, fields), file=sys.stderr)
        return EXIT_OK
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def add_metrics_arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument("-o", "--output", metavar="OUT", help="write records to OUT instead of stdout")
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl", help="record format (default: jsonl)")
    add_family_arguments(parser)


def add_family_arguments(parser: Any) -> None:
    """The ``--family`` and ``--k`` options of ``ragviz metrics``."""
    import argparse

    from ragviz.metrics.retrieval import parse_ks

    def ks_type(text: str) -> tuple[int, ...]:
        try:
            return parse_ks(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parser.add_argument(
        "--family",
        choices=(*FAMILY_NAMES, "all"),
        default="trace",
        help="metric family (default: trace). ragchecker reads RagChecker checking-output JSON; "
        "all = every family that applies to each file",
    )
    parser.add_argument(
        "--k", type=ks_type, default=DEFAULT_KS, metavar="K,K,...", help="retrieval cut-offs (default: 1,3,5,10)"
    )


def no_family_labels(family: str, n_examples: int) -> str:
    """Why a family gave no record for *n_examples* loaded examples: none has what it reads.

    >>> no_family_labels("retrieval", 2896)
    'no example of 2,896 has retrieval labels (the ranked retrieved ids, with retrieved_ids and relevant_ids)'
    """
    from ragviz.metrics.registry import FAMILIES
    from ragviz.metrics.retrieval import ROW_COLUMNS

    needs = FAMILIES[family].units
    if family == "retrieval":
        needs += ", with " + " and ".join(c for c in ROW_COLUMNS if c.endswith("_ids"))
    return f"no example of {n_examples:,} has {family} labels ({needs})"


def run_family_metrics(args: Any) -> int:
    """``ragviz metrics --family F``: records to ``args.output`` (or stdout), means to stderr.

    RagChecker files are recognised by their JSON shape; every other path goes through the
    ordinary loader. Exit 2 with ``PATH:ROW: field: problem`` lines on bad input."""
    import sys

    from ragviz.data.formats.ragchecker import (
        RagCheckerFormatError,
        is_ragchecker_file,
        read_ragchecker,
    )
    from ragviz.export.records import write_records
    from ragviz.metrics.summary import format_summary, summarize

    family, ks = args.family, tuple(args.k)
    checker_paths = [p for p in args.paths if is_ragchecker_file(p)]
    other_paths = [p for p in args.paths if p not in checker_paths]
    problems: list[str] = []
    if family == "ragchecker":
        problems += [
            f'{p}:0: file: not a RagChecker checking output ({{"results": [...]}} with response_claims)'
            for p in other_paths
        ]
    elif family != "all":
        problems += [f"{p}:0: file: RagChecker claims file; use --family ragchecker or all" for p in checker_paths]
    items = []
    for path in checker_paths if family in ("ragchecker", "all") else []:
        try:
            loaded = read_ragchecker(path)
        except RagCheckerFormatError as exc:
            problems += [str(p) for p in exc.problems]
            continue
        for warning in loaded.warnings:
            print(str(warning), file=sys.stderr)
        items += loaded.items
    dataset = None
    if other_paths and family != "ragchecker":
        from ragviz.data.load import load

        result = load(other_paths)
        problems += [str(p) for p in result.errors]
        dataset = result.dataset
        if result.ok:
            warn_load(result.warnings)
    if problems:
        for line in problems:
            print(line, file=sys.stderr)
        print(f"{errors(len(problems))}: nothing computed", file=sys.stderr)
        return EXIT_BAD_INPUT

    records: list[dict] = []
    try:
        if dataset is not None:
            if family == "all":
                records += dataset_all_records(dataset, ks)
            else:
                records += dataset_family_records(family, dataset, ks)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    checker_records: list[dict] = []
    if items:
        from ragviz.metrics.ragchecker import family_records as ragchecker_records

        checker_records = list(ragchecker_records(items))
    if not records and not checker_records and dataset is not None and len(dataset):
        print(f"{no_family_labels(family, len(dataset))}: nothing computed, nothing written", file=sys.stderr)
        return EXIT_BAD_INPUT
    write_records(records + checker_records, args.output, args.format)

    if records:
        fields = all_fields(records) if family == "all" else family_fields(family, ks)
        group_by = "system" if family == "retrieval" else "dataset"
        print(format_summary(summarize(records, fields, group_by=group_by), fields), file=sys.stderr)
    if checker_records:
        from ragviz.metrics.ragchecker import RAGCHECKER_METRICS, reported

        fields = list(RAGCHECKER_METRICS)
        summaries = summarize(checker_records, fields)
        print(format_summary(summaries, fields), file=sys.stderr)
        overall = summaries[-1]
        shown = ", ".join(f"{f} {reported(overall.mean(f) or 0.0)}" for f in fields)
        print(f"RagChecker (x100, 1 decimal, {overall.n} items): {shown}", file=sys.stderr)
    return EXIT_OK
