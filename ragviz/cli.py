"""The ``ragviz`` command line (also ``python -m ragviz``).

Each command parses its options, calls one library function and prints. Library modules are
imported inside the commands so ``ragviz --help`` starts fast; Streamlit is never imported here.
Exit codes: 0 success, 2 bad input (every problem printed as ``PATH:ROW: field: problem``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def _add_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="data files (.parquet, .jsonl, .json, .csv) or directories of Parquet shards",
    )


def _print_problems(problems, stream) -> None:
    for p in problems:
        print(str(p), file=stream)


def cmd_validate(args: argparse.Namespace) -> int:
    from ragviz.loaders import load
    from ragviz.quality import label_issues

    result = load(args.paths)
    _print_problems(result.errors, sys.stdout)
    _print_problems(result.warnings, sys.stdout)
    by_kind: dict[str, int] = {}
    n_flagged = 0
    for example in result.dataset:
        issues = label_issues(example)
        if issues:
            n_flagged += 1
        for issue in issues:
            if args.verbose:
                print(str(issue))
            kind = getattr(issue, "kind", None) or issue.field
            by_kind[kind] = by_kind.get(kind, 0) + 1
    status = "ok" if result.ok else "NOT loadable"
    print(
        f"{len(result.dataset)} examples loaded, {len(result.errors)} errors, "
        f"{len(result.warnings)} load warnings, {n_flagged} examples with label-quality flags: {status}",
        file=sys.stderr,
    )
    for kind, count in sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:6d}  {kind}", file=sys.stderr)
    if by_kind and not args.verbose:
        print("  (run with --verbose to list every flag)", file=sys.stderr)
    return EXIT_OK if result.ok else EXIT_BAD_INPUT


def cmd_metrics(args: argparse.Namespace) -> int:
    from ragviz.loaders import load
    from ragviz.metrics.summary import format_summary, summarize
    from ragviz.metrics.trace import TRACE_METRICS, dataset_trace_records
    from ragviz.records import write_records

    if getattr(args, "family", "trace") != "trace":
        from ragviz.metrics.registry import run_family_metrics

        return run_family_metrics(args)
    result = load(args.paths)
    if not result.ok:
        _print_problems(result.errors, sys.stderr)
        print(f"{len(result.errors)} errors: nothing computed (run `ragviz validate` for details)", file=sys.stderr)
        return EXIT_BAD_INPUT
    fields = [*TRACE_METRICS, "trace_mean"]
    records = list(dataset_trace_records(result.dataset))
    write_records(records, args.output, args.format)
    print(format_summary(summarize(records, fields), fields), file=sys.stderr)
    return EXIT_OK


Command = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragviz",
        description="See, correct and re-score LLM-judge labels of RAG answers (RAGBench schema).",
    )
    from ragviz import __version__

    parser.add_argument("--version", action="version", version=f"ragviz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser(
        "validate",
        help="check that files load; print load errors and the label-quality report",
        description="Load the files and print every problem as PATH:ROW: field: problem. "
        "Exit 0 when everything loads (label-quality flags are warnings), 2 when not.",
    )
    _add_paths(p)
    p.add_argument("-v", "--verbose", action="store_true", help="list every label-quality flag, not just counts")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "metrics",
        help="per-example metrics from the labels in the files",
        description="One record per example with id, dataset, generation_model and the metric values computed "
        "from the labels in the files (TRACe: relevance, utilization, completeness, adherence, trace_mean; null "
        "for unlabeled rows). Means per dataset go to stderr.",
    )
    _add_paths(p)
    p.add_argument("-o", "--output", metavar="OUT", help="write records to OUT instead of stdout")
    p.add_argument("--format", choices=("jsonl", "csv"), default="jsonl", help="record format (default: jsonl)")
    from ragviz.metrics.registry import add_family_arguments

    add_family_arguments(p)
    p.set_defaults(func=cmd_metrics)

    from ragviz.baselines import add_agreement_arguments, run_agreement_command

    p = sub.add_parser(
        "agreement",
        help="RAGBench baseline judges and the LLM judge scored against the current (human) labels",
        description="Print one JSON object per dataset subset: hallucination AUROC and relevance/utilization RMSE of "
        "the GPT-3.5, RAGAS and TruLens baseline scores the rows carry, against the chosen label set, and the "
        "judge's agreement with it (Cohen's kappa, precision/recall/F1, RMSE) over the examples a person decided on.",
    )
    add_agreement_arguments(p)
    p.set_defaults(func=run_agreement_command)

    from ragviz.judge.cli import add_label_arguments, run_label_command

    p = sub.add_parser(
        "label",
        help="label examples with an LLM judge (OpenAI-compatible API) into RAGBench-schema JSONL",
        description="Judge every example with an LLM (cached answers are reused), keep the label sets in the "
        "label store and write the judged rows as RAGBench-schema JSONL. Exit 0 all judged, 1 some failed, 2 bad input.",
    )
    add_label_arguments(p)
    p.set_defaults(func=run_label_command)

    from ragviz.export import add_export_arguments, run_export_command

    p = sub.add_parser(
        "export",
        help="export the corrected label set (RAGBench rows or per-example metrics) from the label store",
        description="Rebuild the examples from the data files registered in the label store and write one "
        "annotator's current labels: RAGBench-schema rows with recomputed TRACe scores, llm_-prefixed judge labels "
        "and provenance (jsonl/parquet), or per-example metrics (csv). Exit 2 on bad input.",
    )
    add_export_arguments(p)
    p.set_defaults(func=run_export_command)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # `ragviz metrics ... | head`
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        print(f"ragviz {args.command}: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
