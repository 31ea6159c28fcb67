"""Every metric ragviz computes, with its declared properties, and one dispatch per family.

Properties (checked by ``tests/test_metrics_registry.py``, which walks this registry):

* ``lower``/``upper`` — the range of a defined value (``bounded`` means [0, 1]);
* ``boolean`` — the value is always 0.0 or 1.0;
* ``order_invariant`` — the value does not change when the family's *units* are reordered
  (:attr:`FamilySpec.units`: e.g. claims and chunks for RagChecker, the ranking for retrieval).

The dispatch functions produce the per-example records the CLI writes; they call each family's
own ``family_records`` so no value is computed in two places.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.metrics.answer import ANSWER_METRICS
from ragviz.metrics.ragchecker import RAGCHECKER_METRICS
from ragviz.metrics.retrieval import DEFAULT_KS, metric_names
from ragviz.metrics.tonic import TONIC_METRICS
from ragviz.metrics.trace import TRACE_METRICS


@dataclass(frozen=True)
class MetricSpec:
    name: str
    family: str
    lower: float = 0.0
    upper: float = 1.0
    boolean: bool = False
    order_invariant: bool = True

    @property
    def bounded(self) -> bool:
        """Values lie in [0, 1]."""
        return self.lower == 0.0 and self.upper == 1.0


@dataclass(frozen=True)
class FamilySpec:
    name: str
    units: str
    metrics: tuple[MetricSpec, ...]

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.metrics]


def _family(name: str, units: str, specs: Sequence[MetricSpec]) -> FamilySpec:
    return FamilySpec(name, units, tuple(specs))


def retrieval_family(ks: Sequence[int] = DEFAULT_KS) -> FamilySpec:
    """The retrieval family for a choice of cut-offs *ks* (metric names depend on them)."""
    return _family(
        "retrieval",
        "the ranked retrieved ids",
        [MetricSpec(n, "retrieval", boolean=n.startswith("hit@"), order_invariant=False) for n in metric_names(ks)],
    )


FAMILIES: dict[str, FamilySpec] = {
    "trace": _family(
        "trace",
        "the relevant / utilized key lists and the response sentences",
        [MetricSpec(n, "trace", boolean=(n == "adherence")) for n in TRACE_METRICS],
    ),
    "ragchecker": _family(
        "ragchecker",
        "response claims, gt-answer claims and retrieved chunks",
        [MetricSpec(n, "ragchecker") for n in RAGCHECKER_METRICS],
    ),
    "tonic": _family(
        "tonic",
        "the retrieved documents and the response sentences",
        [
            MetricSpec(
                n, "tonic", upper=5.0 if n == "answer_similarity" else 1.0, boolean=(n == "answer_consistency_binary")
            )
            for n in TONIC_METRICS
        ],
    ),
    "retrieval": retrieval_family(),
    "answer": _family(
        "answer",
        "the tokens of the response",
        [
            MetricSpec("em", "answer", boolean=True, order_invariant=False),
            MetricSpec("f1", "answer"),
            MetricSpec("f1_set", "answer"),
        ],
    ),
}
FAMILY_NAMES = tuple(FAMILIES)
DATASET_FAMILIES = ("trace", "tonic", "retrieval", "answer")

assert FAMILIES["answer"].names == list(ANSWER_METRICS)


def all_metrics() -> list[MetricSpec]:
    return [m for fam in FAMILIES.values() for m in fam.metrics]


def family_fields(family: str, ks: Sequence[int] = DEFAULT_KS) -> list[str]:
    """Metric field names of a family's records (``trace`` adds ``trace_mean``)."""
    if family == "retrieval":
        return metric_names(ks)
    if family == "trace":
        return [*TRACE_METRICS, "trace_mean"]
    return FAMILIES[family].names


def documents_per_row(dataset: Any) -> list[int]:
    """Per row of a :class:`ragviz.data.dataset.Dataset`: how many documents (chunks) it has."""
    import pyarrow.compute as pc

    table = dataset.table
    for column in ("documents_sentences", "documents"):
        if column in table.column_names:
            return pc.fill_null(pc.list_value_length(table.column(column)), 0).to_pylist()
    return [0] * len(dataset)


def dataset_family_records(family: str, dataset: Any, ks: Sequence[int] = DEFAULT_KS) -> Iterator[dict]:
    """Records of one family (``trace``, ``tonic``, ``retrieval``, ``answer``) for a Dataset."""
    from ragviz.data.ragbench import LABEL_FIELDS

    if family == "trace":
        from ragviz.metrics.trace import dataset_trace_records

        return dataset_trace_records(dataset)
    if family == "tonic":
        from ragviz.metrics import tonic

        rows = dataset.iter_rows([*LABEL_FIELDS, *tonic.ROW_COLUMNS])
        return tonic.family_records(rows, documents_per_row(dataset), dataset.datasets)
    if family == "retrieval":
        from ragviz.metrics import retrieval

        return retrieval.family_records(dataset.iter_rows(list(retrieval.ROW_COLUMNS)), dataset.datasets, ks)
    if family == "answer":
        from ragviz.metrics import answer

        return answer.family_records(dataset.iter_rows(["id", "response", "reference_answer"]), dataset.datasets)
    raise ValueError(f"unknown family {family!r}; expected one of {', '.join(DATASET_FAMILIES)}")


def dataset_all_records(dataset: Any, ks: Sequence[int] = DEFAULT_KS) -> Iterator[dict]:
    """One merged record per example: TRACe, Tonic and answer fields, then retrieval fields —
    plain names when the example has one ranking, ``system:metric`` when it has several."""
    from ragviz.metrics import retrieval

    trace = dataset_family_records("trace", dataset, ks)
    tonic = dataset_family_records("tonic", dataset, ks)
    answer = dataset_family_records("answer", dataset, ks)
    ranking_rows = dataset.iter_rows(list(retrieval.ROW_COLUMNS))
    names = metric_names(ks)
    for t, g, a, row in zip(trace, tonic, answer, ranking_rows):
        record = {**t}
        for other in (g, a):
            record.update({k: v for k, v in other.items() if k not in ("id", "dataset")})
        systems = list(retrieval.family_records([row], [t["dataset"]], ks))
        if len(systems) == 1:
            record["system"] = systems[0]["system"]
            record.update({n: systems[0][n] for n in names})
        else:
            for s in systems:
                record.update({f"{s['system']}:{n}": s[n] for n in names})
        yield record


def all_fields(records: Sequence[dict], ks: Sequence[int] = DEFAULT_KS) -> list[str]:
    """Metric fields present in merged records, in first-seen order (for the stderr means)."""
    skip = {"id", "dataset", "generation_model", "system"}
    seen: dict[str, None] = {}
    for rec in records:
        seen.update(dict.fromkeys(k for k in rec if k not in skip))
    return list(seen)


# -- the `ragviz metrics --family ... --k ...` command ----------------------------------------------
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
    from ragviz.data.records import write_records
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
    if problems:
        for line in problems:
            print(line, file=sys.stderr)
        print(f"{len(problems)} errors: nothing computed", file=sys.stderr)
        return 2

    records: list[dict] = []
    try:
        if dataset is not None:
            if family == "all":
                records += dataset_all_records(dataset, ks)
            else:
                records += dataset_family_records(family, dataset, ks)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    checker_records: list[dict] = []
    if items:
        from ragviz.metrics.ragchecker import family_records as ragchecker_records

        checker_records = list(ragchecker_records(items))
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
    return 0
