"""Pairing the judge's and people's labels per example, for prediction-powered estimates.

An *audit* is a uniformly random sample of the judged examples that people labelled; each example becomes a
:class:`PairedExample` (its metrics under the judge's labels and, when audited, under people's). People's labels
come from a ragviz export (:func:`pair_export`) or from a separate file matched by uid (:func:`pair_human`).
Families: ``trace``, ``tonic`` and ``retrieval`` (their values change with the labels); answer EM / F1 never see
a label, so there is nothing to correct. Bad input raises :class:`AuditError` (``PATH:ROW: field: problem``).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragviz.analysis.estimates.audit_progress import OUTSIDE_REASON
from ragviz.analysis.labelsets.rows import NONE, RowLabels
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.data.dataset import Dataset, examples_at, iter_examples
from ragviz.data.model import Example, Labels
from ragviz.errors import BadInput
from ragviz.metrics.retrieval import DEFAULT_KS, example_retrieval
from ragviz.metrics.tonic import SIMILARITY_FIELD, example_tonic
from ragviz.metrics.trace import trace_scores

__all__ = [
    "AUDIT_COLUMN",
    "AuditError",
    "ESTIMATE_FAMILIES",
    "MetricValues",
    "PairedExample",
    "Pairing",
    "audit_flag",
    "example_metrics",
    "member_rows",
    "pair_export",
    "pair_human",
    "pair_store",
]


AUDIT_COLUMN = "audit_sample"
ESTIMATE_FAMILIES = ("trace", "tonic", "retrieval")
_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no", ""}

MetricValues = Mapping[str, float | None]


class AuditError(BadInput, ValueError):
    """Input that cannot be paired, as one ``PATH:ROW: field: problem`` line."""


@dataclass(frozen=True)
class PairedExample:
    """One judged example: its metrics under the judge's labels and, when audited, under people's.

    ``human`` is ``None`` for an example outside the audit. A metric missing from a mapping, or
    ``None`` in it, is undefined for that example (unlabeled side, no context sentence, no gold ...).
    The values come from the metric families' own per-example functions
    (:func:`ragviz.metrics.trace.trace_scores`, :func:`ragviz.metrics.tonic.example_tonic`,
    :func:`ragviz.metrics.retrieval.example_retrieval`); nothing here computes a metric.
    """

    uid: str
    dataset: str
    generation_model: str
    judge: MetricValues
    human: MetricValues | None = None
    where: str = ""

    @property
    def audited(self) -> bool:
        return self.human is not None


@dataclass
class Pairing:
    """Every judged example once, audited or not, and the caveats met on the way."""

    examples: list[PairedExample]
    warnings: list[str] = field(default_factory=list)

    @property
    def n_labeled(self) -> int:
        return sum(1 for e in self.examples if e.audited)

    @property
    def n_unlabeled(self) -> int:
        return sum(1 for e in self.examples if not e.audited)

    def metric_names(self) -> list[str]:
        """Metrics defined for at least one example on either side, in first-seen order."""
        seen: dict[str, None] = {}
        for e in self.examples:
            for side in (e.judge, e.human):
                # a side naming only metrics seen already adds none (the usual case: one test, not a loop per name)
                if side and not seen.keys() >= side.keys():
                    seen.update(dict.fromkeys(k for k, v in side.items() if v is not None))
        return list(seen)


def _where(example: Example) -> str:
    return str(example.source) if example.source is not None else example.uid


def _row_wheres(dataset: Dataset) -> list[str]:
    """Per row, ``PATH:ROW`` as :func:`_where` reads a built example's source (:func:`ragviz.data.dataset.iter_examples`
    makes it), from the columns."""
    paths, rows = dataset.table.column("_path").to_pylist(), dataset.table.column("_row").to_pylist()
    return [f"{path or ''}:{row or i + 1}" for i, (path, row) in enumerate(zip(paths, rows))]


def example_metrics(
    example: Example,
    labels: Labels | None,
    families: Sequence[str] = ("trace",),
    ks: Sequence[int] = DEFAULT_KS,
) -> dict[str, float | None]:
    """The per-example metrics of *example* under *labels* for *families* (``{}`` when unlabeled).

    Retrieval values are named ``metric`` when the example has one ranking, ``system:metric`` when it
    has several (as ``ragviz metrics --family all``). Raises :class:`AuditError` naming the field when
    an input is not a number or a value comes out non-finite."""
    unknown = [f for f in families if f not in ESTIMATE_FAMILIES]
    if unknown:
        raise ValueError(f"unknown families {unknown}; expected some of {', '.join(ESTIMATE_FAMILIES)}")
    if labels is None:
        return {}
    where = _where(example)
    out: dict[str, float | None] = {}
    if "trace" in families:
        out.update(trace_scores(labels, example.n_context_sentences).as_dict())
        out.pop("trace_mean")
    if "tonic" in families:
        similarity = (
            labels.answer_similarity if labels.answer_similarity is not None else example.extra.get(SIMILARITY_FIELD)
        )
        if similarity is not None and not _is_number(similarity):
            raise AuditError(f"{where}: {SIMILARITY_FIELD}: not a number: {similarity!r}")
        try:
            out.update(example_tonic(example, labels).as_dict())
        except ValueError as exc:  # direct chunk labels of the wrong shape
            raise AuditError(f"{where}: chunk_relevant/chunk_utilized: {exc}") from None
    if "retrieval" in families:
        systems = example_retrieval(example, ks, labels)
        for system, values in systems.items():
            prefix = "" if len(systems) == 1 else f"{system}:"
            out.update({prefix + k: v for k, v in values.items()})
    for name, value in out.items():
        if value is not None and not (_is_number(value) and math.isfinite(float(value))):
            raise AuditError(f"{where}: {name}: not a finite number: {value!r}")
    return out


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def audit_flag(value: Any, where: str) -> bool:
    """One ``audit_sample`` cell as a boolean: true/false, 1/0, "true"/"false"/"yes"/"no";
    null counts as false (not in the sample). Anything else raises :class:`AuditError`.

    >>> audit_flag("True", "f.jsonl:3"), audit_flag(None, "f.jsonl:4"), audit_flag(0, "f.jsonl:5")
    (True, False, False)
    """
    if isinstance(value, str) and value.strip().startswith(('"', "[", "{")):
        try:  # a loader keeps a mixed-type column as JSON text
            value = json.loads(value)
        except ValueError:
            pass
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise AuditError(f"{where}: {AUDIT_COLUMN}: expected true or false, got {value!r}")


def pair_export(
    dataset: Dataset,
    families: Sequence[str] = ("trace",),
    ks: Sequence[int] = DEFAULT_KS,
    scores: Mapping[str, np.ndarray] | None = None,
) -> Pairing:
    """Pair the judge's and people's labels carried by the rows of a ragviz export (``ragviz.export.rows``).

    A row with ``label_source == "human"`` carries people's labels in the plain fields and the judge's under
    ``llm_`` (:attr:`ragviz.data.model.Example.judge_labels`). With a boolean ``audit_sample`` column only the human
    rows where it is true are audited (a human row outside the sample joins the judge-only rest); without it every
    human row is, and :attr:`Pairing.warnings` says they must have been chosen at random. A row whose judge's labels
    are its own (a judge-labelled row) is scored on the label columns, or on *scores* (per metric and row, the TRACe
    of the labels the rows carry, NaN for none: :attr:`ragviz.analysis.dashboard.rows.RowFigures.scores`) when the
    caller has them; only the others' examples are built (the report at 100k built every one again)."""
    from ragviz.analysis.labelsets.named import JUDGE, resolve_label_set

    columns = dataset.table.column_names
    sources = dataset.table.column("label_source").to_pylist() if "label_source" in columns else [None] * len(dataset)
    flags = dataset.table.column(AUDIT_COLUMN).to_pylist() if AUDIT_COLUMN in columns else None
    wheres = _row_wheres(dataset)
    judged = _own_trace(dataset, resolve_label_set(dataset, JUDGE, None).labels, families, scores)
    # the other rows' examples (a labelled person's row among them), built a batch at a time
    built = iter_examples(dataset, [i for i in range(len(dataset)) if i not in judged])
    examples: list[PairedExample] = []
    n_human = unfinished = 0
    for i, uid in enumerate(dataset.uids):
        where = wheres[i]
        human_row = sources[i] == "human"
        n_human += human_row
        in_sample = audit_flag(flags[i], where) if flags is not None else human_row
        unfinished += in_sample and not human_row
        human: MetricValues | None
        if i in judged:  # a person's row is here only when it carries no labels at all: audited, with none
            judge, human = judged[i], {} if human_row and in_sample else None
        else:
            _, example = next(built)
            judge = example_metrics(example, example.judge_labels, families, ks)
            human = example_metrics(example, example.labels, families, ks) if human_row and in_sample else None
        examples.append(PairedExample(uid, dataset.datasets[i], dataset.generation_models[i], judge, human, where))
    pairing = Pairing(examples)
    if flags is None and n_human:
        pairing.warnings.append(
            f"no {AUDIT_COLUMN} column: all {n_human} rows with label_source human count as the audit; "
            "the estimate is valid only if they were chosen uniformly at random"
        )
    if unfinished:
        pairing.warnings.append(
            f"{unfinished} rows have {AUDIT_COLUMN} true but no people's labels yet: counted as judge-only "
            "(valid if which ones were finished is random)"
        )
    if flags is not None and n_human > pairing.n_labeled:
        pairing.warnings.append(
            f"{n_human - pairing.n_labeled} rows with label_source human are outside the audit sample: "
            "their people's labels are not used"
        )
    return pairing


def _examples(dataset: Dataset) -> Iterable[Example]:
    return (e for _, e in iter_examples(dataset))


def pair_human(
    dataset: Dataset, human: Dataset, families: Sequence[str] = ("trace",), ks: Sequence[int] = DEFAULT_KS
) -> Pairing:
    """Pair the judge's labels in *dataset* with people's labels in *human*, matched by
    :attr:`ragviz.data.model.Example.uid` (dataset, id, generation model); each audited example's metrics are
    computed on its own row of *human* (so its corrected retrieval gold or similarity count).

    Every row of *human* is audited, except when *human* has a ``label_source`` column (a ragviz
    export): then only its ``human`` rows are people's labels, and the others (``llm``: the judge's
    labels as they were) are left out, with a warning counting them. A human row naming no example of
    *dataset*, or whose documents or response are split differently (the metrics would count other
    sentences), raises :class:`AuditError`."""
    columns = human.table.column_names
    sources = human.table.column("label_source").to_pylist() if "label_source" in columns else None
    left_out = Counter(str(s) for s in sources or () if s != "human")
    by_uid: dict[str, Example] = {}
    for i, example in iter_examples(human):
        if sources is not None and sources[i] != "human":
            continue
        index = dataset.index_of(example.uid)
        if index is None:
            raise AuditError(
                f"{_where(example)}: id: no judged example with dataset {example.dataset!r}, id {example.id!r} "
                f"and generation model {example.generation_model!r} (matched on dataset_name, id, "
                "generation_model_name)"
            )
        by_uid[example.uid] = example
    examples: list[PairedExample] = []
    for example in _examples(dataset):
        judge = example_metrics(example, example.judge_labels, families, ks)
        person = by_uid.get(example.uid)
        values = None
        if person is not None:
            _check_same_text(person, example)
            values = example_metrics(person, person.labels, families, ks)
        examples.append(
            PairedExample(example.uid, example.dataset, example.generation_model, judge, values, _where(example))
        )
    pairing = Pairing(examples)
    if left_out:
        counted = ", ".join(f"{n:,} with label_source {source}" for source, n in sorted(left_out.items()))
        pairing.warnings.append(
            f"{sum(left_out.values()):,} of {len(human):,} rows of the people's labels left out ({counted}): "
            "only rows a person labelled (label_source human) count"
        )
    return pairing


def _check_same_text(person: Example, judged: Example) -> None:
    if person.context_keys() != judged.context_keys():
        raise AuditError(
            f"{_where(person)}: documents_sentences: keys differ from the judged row {_where(judged)} "
            f"({person.n_context_sentences} vs {judged.n_context_sentences} sentences)"
        )
    if person.response_keys() != judged.response_keys():
        raise AuditError(f"{_where(person)}: response_sentences: keys differ from the judged row {_where(judged)}")


# -- people's labels and audit membership from the label store ------------------------------------------


def _own_trace(
    dataset: Dataset,
    labels: Mapping[int, Labels],
    families: Sequence[str],
    scores: Mapping[str, np.ndarray] | None = None,
) -> dict[int, MetricValues]:
    """:func:`example_metrics` (TRACe only) of the rows whose *labels* are their own, on the columns
    (:func:`ragviz.metrics.trace.dataset_trace_records`, or *scores*: per metric and row, the TRACe of the labels the
    rows carry with NaN for none, :attr:`ragviz.analysis.dashboard.rows.RowFigures.scores`, when a caller has them);
    other rows are left out."""
    if tuple(families) != ("trace",) or not isinstance(labels, RowLabels):
        return {}
    from ragviz.metrics.trace import TRACE_METRICS, dataset_trace_records

    own, labelled = labels.own_rows(), labels.source != NONE
    if scores is None:
        out: dict[int, MetricValues] = {}
        for i, record in enumerate(dataset_trace_records(dataset)):
            if own[i]:
                out[i] = {m: record[m] for m in TRACE_METRICS} if labelled[i] else {}
        return out
    rows = np.flatnonzero(own)
    columns = [np.asarray(scores[m], np.float64)[rows].tolist() for m in TRACE_METRICS]
    named = labelled[rows].tolist()
    return {
        i: {m: (None if v != v else v) for m, v in zip(TRACE_METRICS, values)} if has else {}
        for i, has, *values in zip(rows.tolist(), named, *columns)
    }


def member_rows(dataset: Dataset, members: Iterable[str]) -> list[int]:
    """The rows of the loaded members, sorted (the Review page walks them as a filter)."""
    rows = (dataset.index_of(uid) for uid in members)
    return sorted(r for r in rows if r is not None)


def pair_store(
    dataset: Dataset,
    store: Any,
    members: Iterable[str] | None,
    against: LabelSelection = HUMAN,
    families: Sequence[str] = ("trace",),
    examples: Mapping[int, Example] | None = None,
    scores: Mapping[str, np.ndarray] | None = None,
) -> Pairing:
    """Pair the judge's labels of every example with people's labels from the label store *store* on the audit
    sample's *members*. People's labels are the *against* label set (``human``: every annotator's latest decision
    per field; or one annotator's; :func:`ragviz.analysis.labelsets.named.resolve_label_set`); the judge's are
    :func:`ragviz.analysis.labelsets.named.judge_labels`. Only members people reviewed are audited. Reviewed
    examples outside the sample, and members nobody reviewed yet, are judge-only and named in
    :attr:`Pairing.warnings` with the reason. *members* ``None``: no sample, nothing is audited. *scores*: the
    TRACe of the labels the rows carry, when the caller scored them already (:func:`_own_trace`)."""
    from ragviz.analysis.labelsets.named import JUDGE, resolve_label_set

    member_set = set(members or ())
    judge = resolve_label_set(dataset, JUDGE, store, examples=examples)
    people = resolve_label_set(dataset, against, store, scope="reviewed", examples=examples)
    judged = _own_trace(dataset, judge.labels, families, scores)
    audited = [i for i in people.labels if dataset.uids[i] in member_set]
    needed = sorted({*audited, *(i for i in range(len(dataset)) if i not in judged)})
    built = examples_at(dataset, needed, examples)
    if isinstance(judge.labels, RowLabels):
        judge.labels.prefetch([i for i in needed if i not in judged])
    wheres = _row_wheres(dataset)
    out: list[PairedExample] = []
    for i in range(len(dataset)):
        uid = dataset.uids[i]
        in_sample, reviewed = uid in member_set, i in people.labels
        values = judged[i] if i in judged else example_metrics(built[i], judge.labels.get(i), families)
        human = example_metrics(built[i], people.labels[i], families) if in_sample and reviewed else None
        out.append(PairedExample(uid, dataset.datasets[i], dataset.generation_models[i], values, human, wheres[i]))
    outside, unfinished = len(people.labels) - len(audited), sum(1 for p in out if p.uid in member_set) - len(audited)
    pairing = Pairing(out)
    if outside:
        pairing.warnings.append(
            f"{outside:,} reviewed examples are outside the audit sample and not in the estimate: {OUTSIDE_REASON}"
        )
    if unfinished:
        pairing.warnings.append(
            f"{unfinished:,} audit-sample examples are not reviewed yet: counted as judge-only until they are "
            "(review them in the sample's order so the finished ones stay a random sample)"
        )
    return pairing
