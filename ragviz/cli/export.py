"""``ragviz export``: the corrected label set from the label store, as RAGBench rows, per-example metrics, or a
Ragas / DeepEval / RagChecker dataset. What to write and the writing are :mod:`ragviz.export.targets`; bad input
is raised as :class:`~ragviz.data.errors.BadInput` (printed by :mod:`ragviz.cli.main`, exit 2)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from ragviz.analysis.labelsets.selection import GOLD, HUMAN, LabelSelection
from ragviz.cli.common import (
    EXIT_OK,
    PEOPLE_LABEL_SETS_HELP,
    VERSION_LABEL_SETS_HELP,
    add_db_argument,
    export_selection,
    open_store,
    warn_load,
)
from ragviz.data.errors import BadInput
from ragviz.export.files import FORMATS
from ragviz.export.targets import TARGETS, Exported, Target, export, format_from_name
from ragviz.store.label_store import EVERYONE

__all__ = ["COMMAND", "add_export_arguments", "add_target_arguments", "export_command", "run_export_command"]


COMMAND = "ragviz export"


def export_command(
    db: str | None,
    out: str,
    fmt: str | None = None,
    annotator: str | None = None,
    data: Sequence[str] = (),
    to: str = "ragbench",
    card: bool = False,
    labels: str | None = None,
) -> int:
    """``ragviz export [DATA ...] --db DB -o OUT [--format jsonl|parquet|csv] [--to ragbench|ragas|deepeval|ragchecker]
    [--card] [--annotator NAME | --labels gold|latest|judge:VERSION|ANNOTATOR]``.

    Rebuilds the examples from the DATA files and directories, else from the data files
    registered in the store, writes whose labels :func:`~ragviz.cli.common.export_selection` says to OUT
    (:func:`ragviz.export.targets.export`, streamed batch by batch where it can) and prints a one-line summary
    to stderr. With several annotators and none named (or ``--annotator '*'``, ``--labels latest``) it is the
    team's export: the ``human`` label set. With DATA and ``db=None`` (no store) the rows' own labels are
    exported. Returns 0; bad input (missing DB or data files, unknown annotator) raises :class:`BadInput`, which
    ``ragviz`` prints and exits 2 on.
    """
    from ragviz.store.postgres import is_url, mask_url

    fmt = fmt or format_from_name(out)
    if to not in TARGETS:
        raise BadInput(f"unknown target {to!r} (choose from {', '.join(TARGETS)})", path=COMMAND)
    if fmt not in FORMATS:
        raise BadInput(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})", path=COMMAND)
    target = Target(out, fmt, to, card)
    if db is None:
        if not data:
            raise BadInput("give data files or a label store (--db)", path=COMMAND)
        _summary(export(None, None, data, target), target, None)
        return EXIT_OK
    store = open_store(db, command=COMMAND)
    db = mask_url(db) if is_url(db) else db  # messages below name the URL without its password
    with store:
        whose = export_selection(store, annotator, labels, command=COMMAND, path=db, versions=True)
        if data:
            _summary(export(store, whose, data, target), target, whose)
            return EXIT_OK
        sources = store.sources.registered()
        if not sources:
            raise BadInput(
                "no data files registered in this store (the app registers what its Data page opens, not the data "
                "it was started with); name them: ragviz export DATA ... --db DB",
                path=db,
            )
        missing = [s for s in sources if not Path(s).exists()]
        if missing:
            *listed, last = [f"{s}: registered data file is missing" for s in missing]
            raise BadInput(last, listed=listed)
        _summary(export(store, whose, sources, target, what="registered data files"), target, whose)
        return EXIT_OK


def _summary(done: Exported, target: Target, whose: LabelSelection | None) -> None:
    warn_load(done.load_warnings)
    if done.ragchecker:
        who = whose.name if whose is not None else "(no annotator)"
        print(
            f"exported {done.n_rows} RagChecker items to {done.written} (ragchecker); annotator {who}: "
            f"{done.n_human} with claim corrections or reviews",
            file=sys.stderr,
        )
        return
    n_rows, n_human = done.n_rows, done.n_human
    if whose == GOLD:
        print(
            f"exported {n_rows} examples to {done.written} ({target.describe()}); gold labels: {n_human} agreed or"
            f" adjudicated, {n_rows - n_human} judge labels as they were (label_source llm)",
            file=sys.stderr,
        )
        return
    if whose is not None and whose.kind == "version":
        print(
            f"exported {n_rows} examples to {done.written} ({target.describe()}); {whose.name}: that judge version's"
            " labels where it labelled an example, the judge's latest labels elsewhere (label_source llm)",
            file=sys.stderr,
        )
        return
    who = (
        "every annotator (the team's export, a reviewer per row)"
        if whose == HUMAN
        else whose.name
        if whose is not None
        else "(no annotator)"
    )
    print(
        f"exported {n_rows} examples to {done.written} ({target.describe()}); annotator {who}: {n_human} "
        f"human-reviewed, {done.n_corrected} corrected, {n_rows - n_human} judge labels as they were",
        file=sys.stderr,
    )


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``ragviz export`` (the CLI module only wires the subparser)."""

    parser.add_argument(
        "data",
        nargs="*",
        metavar="DATA",
        help="data files or directories to export with the store's labels (default: the files registered in the store)",
    )
    add_db_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        required=True,
        help="file to write ('-' for stdout; a directory, existing or ending in /: Parquet with a dataset card)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="jsonl or parquet: RAGBench rows with the current labels; csv: per-example metrics (default: from OUT's extension, else jsonl)",
    )
    add_target_arguments(parser)
    parser.add_argument(
        "--annotator",
        metavar="NAME",
        default=None,
        help=f"whose labels to export: this annotator's, whatever the name (default: the one annotator with labels; "
        f"with several, or '{EVERYONE}': the team's export, the human label set: per example and label field every "
        "annotator's latest decision, with a reviewer per row and field_reviewers where several people decided)",
    )
    parser.add_argument(
        "--labels",
        metavar="gold|latest|judge:VERSION|ANNOTATOR",
        default=None,
        help=f"which label set to export: {PEOPLE_LABEL_SETS_HELP}; or {VERSION_LABEL_SETS_HELP}. latest is human (as "
        f"--annotator '{EVERYONE}'); gold rows carry label_source 'agreed' or 'adjudicated' with reviewer = who settled "
        "them, the rest keep the judge's labels (label_source 'llm'); a judge version's rows carry its labels (the llm_ "
        "copies too), the rest the judge's latest labels",
    )


def add_target_arguments(parser: argparse.ArgumentParser) -> None:
    """``--to`` and ``--card`` (shared with ``ragviz convert``)."""
    parser.add_argument(
        "--to",
        choices=TARGETS,
        default="ragbench",
        help="ragbench: RAGBench rows (--format); ragas: a Ragas dataset as JSON lines (EvaluationDataset.from_jsonl); "
        "deepeval: DeepEval test cases as a JSON list (a .csv OUT: DeepEval's CSV with |-joined lists); "
        'ragchecker: RagChecker JSON {"results": [...]} (default: ragbench)',
    )
    parser.add_argument(
        "--card",
        action="store_true",
        help="with a Parquet OUT file: also write its dataset card, <stem>.README.md, beside it "
        "(a Parquet OUT that is a directory always gets data-00000-of-00001.parquet and README.md)",
    )


def run_export_command(args: argparse.Namespace) -> int:
    from ragviz.store.label_store import default_db
    from ragviz.store.postgres import is_url

    db: str | None = str(args.db or default_db())
    if args.data and args.db is None and not is_url(str(db)) and not Path(str(db)).expanduser().is_file():
        db = None  # data named and no store yet: the rows' own labels
    if args.labels is not None and args.annotator is not None:
        raise BadInput("give --labels or --annotator, not both", path=COMMAND)
    if db is None and args.labels is not None and args.labels.strip() == "gold":
        raise BadInput("gold labels live in a label store: give --db DB", path=COMMAND, field="--labels gold")
    return export_command(db, args.output, args.format, args.annotator, args.data, args.to, args.card, args.labels)
