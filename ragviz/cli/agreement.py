"""``ragviz agreement``: baseline judges and judge-vs-human figures per subset, or annotator agreement."""

from __future__ import annotations

from typing import Any

from ragviz.analysis.dashboard.baselines import agreement_report, has_baseline_scores
from ragviz.cli.common import EXIT_OK, LABEL_SETS_HELP, add_db_argument, errors, label_selection, open_store, warn_load
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput

__all__ = ["COMMAND", "add_agreement_arguments", "run_agreement_command"]


COMMAND = "ragviz agreement"


def add_agreement_arguments(parser: Any) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="data files or directories of Parquet shards")
    parser.add_argument(
        "--against",
        default="human",
        metavar="llm|human|gold|ANNOTATOR",
        help=f"the label set taken as the truth: {LABEL_SETS_HELP}; default human. Examples nobody decided on keep "
        "the judge's labels",
    )
    add_db_argument(parser)
    parser.add_argument(
        "--annotators",
        action="store_true",
        help="instead: agreement between the annotators in the label store, as one JSON object (Cohen's kappa per "
        "pair and Fleiss' kappa overall for the relevant / utilized / supported sentence labels, with the number of "
        "shared examples behind each figure, and krippendorff_alpha per label kind with its bootstrap 95%% interval "
        "over the examples two or more annotators decided); once a team's round is assigned, only its annotators on "
        "the examples assigned to them count (left_out names the others, with their examples)",
    )


def run_agreement_command(args: Any) -> int:
    """``ragviz agreement``: one JSON object per subset on stdout; bad input raises :class:`BadInput` (exit 2)."""
    import json
    import sys
    from pathlib import Path

    from ragviz.analysis.labelsets.selection import JUDGE, parse_label_set
    from ragviz.data.load import load

    result = load(args.paths)
    if not result.ok:
        raise BadInput(
            f"{errors(len(result.errors))}: nothing computed (run `ragviz validate` for details)", listed=result.errors
        )
    warn_load(result.warnings)
    store = None
    against = parse_label_set(args.against, option="--against", path=COMMAND)
    if against != JUDGE or getattr(args, "annotators", False):
        from ragviz.store.label_store import default_db
        from ragviz.store.postgres import is_url, mask_url

        target = str(args.db or default_db())
        db = mask_url(target) if is_url(target) else Path(target).expanduser()
        # no --db and no store at the default place: nobody has decided yet (the judge's labels stand)
        if args.db or is_url(target) or Path(db).exists():
            store = open_store(target, command=COMMAND)
        if not getattr(args, "annotators", False):
            try:
                against = label_selection(args.against, store, option="--against", path=str(db))
            except BadInput:
                if store is not None:
                    store.close()
                raise
    if getattr(args, "annotators", False):
        return _print_annotator_agreement(result.dataset, store)
    try:
        for row in agreement_report(result.dataset, against, store):
            print(json.dumps(row))
    finally:
        if store is not None:
            store.close()
    if not has_baseline_scores(result.dataset):
        print("note: the data carries no baseline-judge score columns; their figures are null", file=sys.stderr)
    return EXIT_OK


def _print_annotator_agreement(dataset: Dataset, store: Any) -> int:
    """``ragviz agreement --annotators``: :meth:`ragviz.analysis.agreement.AnnotatorAgreement.as_dict` as JSON."""
    import json
    import sys

    from ragviz.analysis.agreement import AnnotatorAgreement
    from ragviz.analysis.team.dashboard import table_alpha
    from ragviz.analysis.team.kappas import table_kappas
    from ragviz.analysis.team.table import round_table

    try:
        # a team's round (the store holds assignments): its annotators only
        table = round_table(dataset, store) if store is not None else None
        figures = table_kappas(table) if table is not None else AnnotatorAgreement((), {}, [], [], {})
        alpha = table_alpha(table) if table is not None else {}
    finally:
        if store is not None:
            store.close()
    print(json.dumps({**figures.as_dict(), "krippendorff_alpha": {k: a.as_dict() for k, a in alpha.items()}}))
    for who, n in figures.left_out.items():
        print(f"note: not counted: {who}'s {n:,} decided examples outside the round's assignments", file=sys.stderr)
    if len(figures.annotators) < 2:
        print(
            f"note: {len(figures.annotators)} annotator(s) with decisions on the loaded examples: "
            "agreement needs two or more",
            file=sys.stderr,
        )
    return EXIT_OK
