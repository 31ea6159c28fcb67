"""Every metric ragviz computes, with its declared properties, and one dispatch per family.

Properties (checked by ``tests/metrics/test_registry.py``, which walks this registry):

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

__all__ = [
    "DATASET_FAMILIES",
    "FAMILIES",
    "FAMILY_NAMES",
    "FamilySpec",
    "MetricSpec",
    "all_fields",
    "all_metrics",
    "dataset_all_records",
    "dataset_family_records",
    "documents_per_row",
    "family_fields",
    "retrieval_family",
]


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
