"""RAGBench's baseline judges scored against the current labels, the way the RAGBench authors did.

RAGBench rows carry the scores of three baseline evaluators (GPT-3.5 prompted as a judge, RAGAS,
TruLens). Each is scored per dataset subset against the *truth* = TRACe of the current labels
(:func:`ragviz.metrics.trace.trace_scores`, never the stored score columns), so a human correction
changes the table. The figures (hallucination AUROC, relevance and utilization RMSE) are defined in
:func:`score_baseline`. Reference: Friel et al., "RAGBench", 2024 (arXiv:2407.11005), Table 4.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.analysis.stats import auroc, rmse
from ragviz.data.model import Labels
from ragviz.metrics.summary import ALL, subset_groups
from ragviz.metrics.trace import TraceScores, trace_scores

if TYPE_CHECKING:
    from ragviz.analysis.labelsets.named import LabelSet
    from ragviz.data.dataset import Dataset

__all__ = [
    "BASELINE_JUDGES",
    "BaselineJudge",
    "BaselineRecord",
    "BaselineScore",
    "agreement_report",
    "baseline_records",
    "baseline_table",
    "baseline_table_against",
    "baseline_table_of_scores",
    "has_baseline_scores",
    "score_baseline",
]


@dataclass(frozen=True)
class BaselineJudge:
    """Which row fields hold one baseline judge's predictions (``None``: it predicts no such score)."""

    key: str
    title: str
    adherence_field: str
    relevance_field: str
    utilization_field: str | None = None

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(f for f in (self.adherence_field, self.relevance_field, self.utilization_field) if f)


BASELINE_JUDGES = (
    BaselineJudge("gpt35", "GPT-3.5 judge", "gpt3_adherence", "gpt3_context_relevance", "gpt35_utilization"),
    BaselineJudge("ragas", "RAGAS", "ragas_faithfulness", "ragas_context_relevance"),
    BaselineJudge("trulens", "TruLens", "trulens_groundedness", "trulens_context_relevance"),
)


@dataclass(frozen=True)
class BaselineRecord:
    """One example: its subset, the TRACe of the truth labels, and the baseline predictions."""

    index: int
    subset: str
    truth: TraceScores
    predictions: dict[str, float | None]


@dataclass(frozen=True)
class BaselineScore:
    """One baseline judge on one subset; ``n_*`` count the rows each figure used."""

    judge: str
    subset: str
    hallucination_auroc: float | None
    relevance_rmse: float | None
    utilization_rmse: float | None
    n_auroc: int
    n_relevance: int
    n_utilization: int


def _number(value: Any) -> float | None:
    """A baseline's score, ``None`` when missing or not finite (NaN, inf: skipped, never scored)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def baseline_records(dataset: Dataset, truth: Mapping[int, Labels | None] | None = None) -> Iterator[BaselineRecord]:
    """One record per example of *dataset*. The truth is the labels the row carries, replaced by
    ``truth[i]`` for every row index *i* in *truth* (human corrections)."""
    from ragviz.metrics.trace import TraceScores, dataset_trace_records

    truth = truth or {}
    fields = [f for j in BASELINE_JUDGES for f in j.fields]
    n_sentences = dataset.n_context_sentences
    subsets = dataset.datasets
    table = dataset.table
    columns = {f: table.column(f).to_pylist() if f in table.column_names else [None] * len(dataset) for f in fields}
    # The rows' own labels are scored on columns (ragviz.metrics.trace.trace_arrays); corrections one by one.
    for i, record in enumerate(dataset_trace_records(dataset)):
        if i in truth:
            scores = trace_scores(truth[i], n_sentences[i])
        else:
            scores = TraceScores(
                record["relevance"], record["utilization"], record["completeness"], record["adherence"]
            )
        yield BaselineRecord(
            index=i,
            subset=subsets[i],
            truth=scores,
            predictions={f: _number(columns[f][i]) for f in fields},
        )


def score_baseline(judge: BaselineJudge, records: Sequence[BaselineRecord], subset: str = ALL) -> BaselineScore:
    """AUROC and RMSEs of *judge* over *records*, against the TRACe of the truth labels:

    * hallucination AUROC: truth = the example is NOT adherent; prediction = 1 - the judge's adherence
      score (``gpt3_adherence``, ``ragas_faithfulness``, ``trulens_groundedness``);
    * relevance RMSE: the judge's context-relevance score against the relevance score;
    * utilization RMSE (GPT-3.5 only): ``gpt35_utilization`` against the utilization score.

    Rows whose prediction is NaN/null are dropped for that figure only; unlabeled rows are dropped."""
    labeled = [r for r in records if r.truth.labeled]
    truth_h: list[bool] = []
    pred_h: list[float] = []
    for r in labeled:
        adherence = r.predictions.get(judge.adherence_field)
        if adherence is not None:
            truth_h.append(r.truth.adherence == 0.0)
            pred_h.append(1.0 - adherence)

    def _rmse(pred_field: str | None, metric: str) -> tuple[float | None, int]:
        if pred_field is None:
            return None, 0
        truth: list[float] = []
        pred: list[float] = []
        for r in labeled:
            t, p = getattr(r.truth, metric), r.predictions.get(pred_field)
            if t is not None and p is not None:
                truth.append(t)
                pred.append(p)
        return rmse(truth, pred), len(truth)

    rel, n_rel = _rmse(judge.relevance_field, "relevance")
    util, n_util = _rmse(judge.utilization_field, "utilization")
    return BaselineScore(
        judge=judge.key,
        subset=subset,
        hallucination_auroc=auroc(truth_h, pred_h) if pred_h else None,
        relevance_rmse=rel,
        utilization_rmse=util,
        n_auroc=len(pred_h),
        n_relevance=n_rel,
        n_utilization=n_util,
    )


def has_baseline_scores(dataset: Dataset) -> bool:
    """True when the dataset carries at least one baseline judge's adherence column."""
    names = set(dataset.table.column_names)
    return any(j.adherence_field in names for j in BASELINE_JUDGES)


def baseline_table(records: Iterable[BaselineRecord], with_all: bool = True) -> list[dict[str, Any]]:
    """One flat dict per subset (sorted; plus ``ALL`` when there are several): ``dataset``, ``n``
    (labeled rows) and ``<judge>_hallucination_auroc`` / ``_relevance_rmse`` / ``_utilization_rmse``
    (GPT-3.5 only) with the row counts behind each (``<judge>_n_auroc`` ...)."""
    table = []
    for subset, rows in subset_groups(records, lambda r: r.subset, with_all):
        out: dict[str, Any] = {"dataset": subset, "n": sum(1 for r in rows if r.truth.labeled)}
        for judge in BASELINE_JUDGES:
            s = score_baseline(judge, rows, subset)
            out[f"{judge.key}_hallucination_auroc"] = s.hallucination_auroc
            out[f"{judge.key}_relevance_rmse"] = s.relevance_rmse
            if judge.utilization_field:
                out[f"{judge.key}_utilization_rmse"] = s.utilization_rmse
            out[f"{judge.key}_n_auroc"] = s.n_auroc
            out[f"{judge.key}_n_relevance"] = s.n_relevance
            if judge.utilization_field:
                out[f"{judge.key}_n_utilization"] = s.n_utilization
        table.append(out)
    return table


def baseline_table_against(dataset: Dataset, truth: LabelSet) -> list[dict[str, Any]]:
    """:func:`baseline_table` of *dataset* with *truth*'s labels as the truth (a row *truth* does
    not cover counts as unlabeled)."""
    return baseline_table(baseline_records(dataset, {i: truth.labels.get(i) for i in range(len(dataset))}))


def baseline_table_of_scores(dataset: Dataset, truth: Mapping[str, Any]) -> list[dict[str, Any]]:
    """:func:`baseline_table` with the truth given as per-row TRACe score arrays (*truth*: metric ->
    one float per row, NaN for null, as :func:`ragviz.metrics.trace.trace_arrays` gives them): the
    same table as :func:`baseline_table_against` with a label set whose scores these are, without a
    record per row. Each figure still comes from :func:`score_baseline`'s definitions: AUROC and
    RMSE of :mod:`ragviz.analysis.stats` over the labeled rows that have a prediction."""
    import numpy as np

    names, codes = dataset.dataset_codes
    adherence = np.asarray(truth["adherence"], dtype=float)
    labeled = ~np.isnan(adherence)
    table = dataset.table

    def predictions(name: str | None) -> np.ndarray:
        if name is None or name not in table.column_names:
            return np.full(len(dataset), np.nan)
        values = table.column(name).to_numpy()
        return np.where(np.isfinite(values), values, np.nan) if values.dtype.kind == "f" else _as_floats(values)

    columns = {f: predictions(f) for j in BASELINE_JUDGES for f in j.fields}
    groups = [(name, codes == k) for k, name in enumerate(names)]
    if len(groups) > 1:
        groups.append((ALL, np.ones(len(dataset), bool)))
    out = []
    for subset, member in groups:
        rows = member & labeled
        row: dict[str, Any] = {"dataset": subset, "n": int(rows.sum())}
        for judge in BASELINE_JUDGES:
            predicted = rows & ~np.isnan(columns[judge.adherence_field])
            truth_h = adherence[predicted] == 0.0
            pred_h = 1.0 - columns[judge.adherence_field][predicted]
            row[f"{judge.key}_hallucination_auroc"] = auroc(truth_h, pred_h) if len(pred_h) else None
            figures = {}
            for field, metric in ((judge.relevance_field, "relevance"), (judge.utilization_field, "utilization")):
                if field is None:
                    continue
                t = np.asarray(truth[metric], dtype=float)
                both = rows & ~np.isnan(t) & ~np.isnan(columns[field])
                figures[metric] = (rmse(t[both], columns[field][both]), int(both.sum()))
            row[f"{judge.key}_relevance_rmse"] = figures["relevance"][0]
            if judge.utilization_field:
                row[f"{judge.key}_utilization_rmse"] = figures["utilization"][0]
            row[f"{judge.key}_n_auroc"] = len(pred_h)
            row[f"{judge.key}_n_relevance"] = figures["relevance"][1]
            if judge.utilization_field:
                row[f"{judge.key}_n_utilization"] = figures["utilization"][1]
        out.append(row)
    return out


def _as_floats(values: Any) -> Any:
    """Values of a non-float column as floats, NaN where :func:`_number` gives ``None``."""
    import numpy as np

    return np.array([np.nan if (v := _number(x)) is None else v for x in values], dtype=float)


# -- report per subset (the `ragviz agreement` command and the Dashboard) ------------------------------


def _scores_under(dataset: Dataset, labels: Mapping[int, Labels]) -> dict[str, Any]:
    """Per metric, each row's TRACe under *labels* (a label set's; NaN where a row has none): the rows whose labels
    are their own scored on the label columns (:func:`ragviz.analysis.dashboard.rows.row_figures`), only the others'
    examples built, as the Dashboard scores them. ``ragviz agreement`` built a label set per row (8.7 s at 100k)."""
    import numpy as np

    from ragviz.analysis.dashboard.rows import row_figures
    from ragviz.analysis.labelsets.rows import RowLabels, human_rows
    from ragviz.data.dataset import examples_at

    # own and scored by row_figures alike: not a person's row (row_figures scores the judge's labels, its llm_ copy)
    own = labels.own_rows() & ~human_rows(dataset) if isinstance(labels, RowLabels) else np.zeros(len(dataset), bool)
    others = np.flatnonzero(~own).tolist()
    built = examples_at(dataset, others)
    return row_figures(dataset).with_rows({i: (built[i], labels.get(i)) for i in others}).scores


def agreement_report(dataset: Dataset, against: LabelSelection = HUMAN, store: Any = None) -> list[dict[str, Any]]:
    """Per subset (plus ``ALL``): the baseline-judge figures against the *against* label set
    (``llm``, ``human`` or an annotator; unreviewed examples keep the judge's labels), and, unless
    *against* is ``llm``, the judge's agreement with it over the examples a person decided on
    (``judge_agreement``, see :meth:`ragviz.analysis.agreement.Agreement.as_dict`)."""
    from ragviz.analysis.agreement import agreement
    from ragviz.analysis.labelsets.named import JUDGE, resolve_label_set
    from ragviz.data.dataset import examples_at

    truth = resolve_label_set(dataset, against, store, scope="all")
    table = baseline_table_of_scores(dataset, _scores_under(dataset, truth.labels))
    if against == JUDGE:
        for row in table:
            row["against"] = against.name
        return table
    judge = resolve_label_set(dataset, JUDGE, store)
    reviewed = resolve_label_set(dataset, against, store, scope="reviewed")
    examples = examples_at(dataset, sorted(reviewed.labels))  # only the examples a person decided on
    subsets = dataset.datasets
    for row in table:
        rows = [i for i in sorted(reviewed.labels) if row["dataset"] in (ALL, subsets[i])]
        figures = agreement((examples[i], reviewed.labels[i], judge.labels.get(i)) for i in rows).as_dict()
        row["against"] = against.name
        row["judge_agreement"] = figures
    return table
