"""``ragviz report``: the stakeholder report, one self-contained HTML file (or PDF) with the corrected numbers
first, how far the judge can be trusted second, the evidence and provenance after
(:mod:`ragviz.export.report`, the function the app's "Download report" button calls).

Exit 0, or 2 on bad input with one ``ragviz report: ...`` line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ragviz.cli.common import EXIT_OK, add_db_argument, first_problem, label_selection, open_store, warn_load
from ragviz.data.errors import BadInput

__all__ = ["COMMAND", "FORMATS", "add_report_arguments", "run_report_command", "store_where"]


COMMAND = "ragviz report"
FORMATS = ("html", "pdf")  # ragviz.export.report.FORMATS (lazy import)


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="DATA",
        help="the judged rows the report is of, in any format ragviz reads (.parquet, .jsonl, .json, .csv, folders)",
    )
    add_db_argument(
        parser,
        defaults_to_store=False,
        metavar="DB_OR_URL",
        purpose="people's decisions and the audit sample; without it the report shows the judge's labels alone",
    )
    parser.add_argument("-o", "--output", metavar="OUT", required=True, help="the file to write (report.html)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="html (default, or from OUT's extension) or pdf (through WeasyPrint: make run installs it; else pip install 'ragviz[pdf]')",
    )
    parser.add_argument("--title", default="RAG evaluation report", help="the report's title")
    parser.add_argument(
        "--by",
        choices=("dataset_name", "generation_model_name"),
        default="dataset_name",
        help="group the per-subset tables and agreement by this field (default: dataset_name)",
    )
    parser.add_argument(
        "--date",
        metavar="YYYY-MM-DD",
        help="the date the report states (default: today, UTC); the same inputs and date give the same bytes",
    )
    parser.add_argument(
        "--against",
        default="human",
        metavar="human|gold|ANNOTATOR",
        help="people's labels: human (per example and label field, every annotator's latest decision: the labels "
        "of the team's export; default), gold (the team's agreed or adjudicated labels) or one annotator's name "
        "(annotator:NAME for a person named like one of these)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        metavar="ID",
        help="the audit sample (default: the team's, chosen by an admin, else the newest drawn from DATA)",
    )


def _fail(message: str) -> int:
    """Bad input, reported by :func:`ragviz.cli.main.main` as one ``ragviz report: ...`` line (exit 2)."""
    raise BadInput(message, path=COMMAND)


def store_where(db: str | None) -> str:
    """The label store as messages name it (a URL with its password masked; ``no label store`` without one)."""
    from ragviz.store.postgres import is_url, mask_url

    return "no label store (--db)" if db is None else mask_url(db) if is_url(db) else db


def run_report_command(args: argparse.Namespace) -> int:
    """``ragviz report``: see the module docstring."""
    from ragviz.data.load import load
    from ragviz.export.report import ReportError, ReportRequest, check_date, pdf_unavailable, report_bytes, today
    from ragviz.export.report.charts import warm_up

    fmt = args.format or ("pdf" if args.output.lower().endswith(".pdf") else "html")
    missing = pdf_unavailable() if fmt == "pdf" else None
    if missing:  # said before any work, not after the report is built
        return _fail(missing)
    try:
        date = check_date(args.date) if args.date else today()
    except ReportError as exc:
        return _fail(str(exc))
    result = load(args.paths)
    if not result.ok:
        return _fail(first_problem(result.errors))
    if len(result.dataset) == 0:
        return _fail(f"{', '.join(args.paths)}: no rows")
    warn_load(result.warnings)
    warm_up()  # the charts' engine starts while the figures are computed
    store = None if args.db is None else open_store(args.db, command=COMMAND)
    try:
        against = label_selection(args.against, store, option="--against", path=COMMAND, people=True, versions=False)
    except BadInput:
        if store is not None:
            store.close()
        raise
    request = ReportRequest(
        paths=tuple(args.paths),
        db=args.db,
        title=args.title,
        by=args.by,
        date=date,
        against=against,
        sample_id=args.sample,
        output=args.output,
        format=fmt,
    )
    try:
        if args.sample is not None:
            sample = store.audits.get_sample(args.sample) if store is not None else None
            if store is None or sample is None:
                return _fail(f"--sample: no audit sample {args.sample} in {store_where(args.db)}")
        data = report_bytes(result.dataset, store, request)
    except ReportError as exc:
        return _fail(str(exc))
    finally:
        if store is not None:
            store.close()
    Path(args.output).write_bytes(data)
    print(f"wrote {args.output} ({len(data):,} bytes, {fmt})", file=sys.stderr)
    return EXIT_OK
