"""Exporting the corrected label set: RAGBench rows (JSONL / Parquet) and a per-example metrics CSV.

:func:`export_row` says what an exported row holds for each choice of whose labels (a
:class:`~ragviz.analysis.labelsets.selection.LabelSelection`); :func:`exported_batches` and :func:`export_batches`
give the rows batch by batch, :func:`metrics_table` the per-example metrics.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.analysis.labelsets.named import judge_labels_of
from ragviz.analysis.labelsets.selection import GOLD, HUMAN, LabelSelection, Whose, as_selection, store_annotator
from ragviz.analysis.team.gold_set import round_gold
from ragviz.analysis.team.table import current_round_table
from ragviz.data.dataset import BOOKKEEPING, PATH_COL, ROW_COL, SUBSET_COL, Dataset, examples_at
from ragviz.data.model import Example, Labels, RowRef
from ragviz.data.ragbench import (
    LLM_PREFIX,
    OVERRIDE_FIELDS,
    example_from_row,
    labels_to_row,
    overrides_from_row,
)
from ragviz.export.columnar import RowProvenance, plain_batch, plain_export_columns, plain_rows, plain_table
from ragviz.metrics.trace import TRACE_METRICS, TraceScores, trace_scores
from ragviz.store.events import base_labels, fold_labels, status_of, without_contradicting_explanations
from ragviz.store.label_store import LabelStore

__all__ = [
    "EXPORTING",
    "ExportBatch",
    "ExportedExample",
    "METRICS_COLUMNS",
    "RowsDone",
    "TEXT_COLUMNS",
    "export_batches",
    "export_fields",
    "export_row",
    "export_rows",
    "exported_batches",
    "exported_examples",
    "metrics_records",
    "metrics_table",
    "original_inputs",
]


#: What an export's progress callback names: ``progress(EXPORTING, rows done, total)``, once a batch.
EXPORTING = "Building the export"
#: ``progress(what, rows done, total)``, called once a batch while an export is built.
RowsDone = Callable[[str, int, int], None]

METRICS_COLUMNS = ("id", "dataset", "generation_model", *TRACE_METRICS, "trace_mean", "label_source")


#: Input columns an export never changes; :func:`exported_batches` leaves them in Arrow (see there).
TEXT_COLUMNS = ("question", "documents", "documents_sentences", "response", "response_sentences")


@dataclass(frozen=True)
class ExportedExample:
    """One example as exported: its input row (bookkeeping columns dropped, ``dataset_name`` /
    ``annotating_model_name`` filled in), the example, the current and judge labels, the scores
    of the current labels and who decided them.

    From :func:`exported_batches` with ``text=False``, ``row`` lacks :data:`TEXT_COLUMNS` and an
    example the store knows nothing about is built without its sentences (its labels, ids and
    inputs are all there); ``n_documents`` is the row's document count either way."""

    row: dict[str, Any]
    example: Example
    current: Labels | None
    judge: Labels | None
    scores: TraceScores
    label_source: str
    reviewer: str | None
    reviewed_at: str | None
    n_documents: int = 0
    audit_sample: bool = False
    #: The team's export only (``None`` otherwise): who decided each label field, when more than one
    #: person's decisions are in the row (:func:`ragviz.store.events.fold_team`).
    field_reviewers: dict[str, str] | None = None


def exported_examples(dataset: Dataset, store: LabelStore | None, whose: Whose) -> Iterator[ExportedExample]:
    """Every example of *dataset* with *whose* labels from *store* (whole rows)."""
    for _, items in exported_batches(dataset, store, whose):
        yield from items


def exported_batches(
    dataset: Dataset,
    store: LabelStore | None,
    whose: Whose,
    batch_size: int = 2048,
    text: bool = True,
    light: bool = True,
) -> Iterator[tuple[pa.Table, list[ExportedExample]]]:
    """The examples of *dataset* batch by batch: each batch's slice of the dataset table and its
    :class:`ExportedExample` items, with *whose* labels from *store*.

    The store is asked only about examples it knows (one query for the annotator's statuses, one
    for the judged uids), so an export of 100k mostly untouched rows costs two queries plus one
    per touched example. Only the rows of one batch are Python objects at a time; with
    ``text=False`` the sentence and document text stays in Arrow (a Parquet export takes those
    columns from the slice as they are) and untouched examples are built without sentences.
    """
    for sliced, _, items, _ in _batches(dataset, store, whose, batch_size, text, light, plain=False):
        yield sliced, items


@dataclass(frozen=True)
class ExportBatch:
    """One batch of an export: the dataset's slice, which of its rows are exported on columns
    (:mod:`ragviz.export.columnar`; ``None``: none of them), the other rows as :class:`ExportedExample` items, in
    order, and the provenance of the rows on columns when some are gold rows (``columnar.plain_rows``)."""

    sliced: pa.Table
    plain: np.ndarray | None
    items: list[ExportedExample]
    provenance: RowProvenance | None = None


def export_batches(
    dataset: Dataset, store: LabelStore | None, whose: Whose, batch_size: int = 2048, text: bool = True
) -> Iterator[ExportBatch]:
    """The examples of *dataset* batch by batch, as :func:`exported_batches` gives them, except that rows the store
    knows nothing about, and a gold export's rows agreed on the labels they were loaded with, are left to the columnar
    export when the table allows it (:func:`ragviz.export.columnar.plain_table`, ``plain_batch``, ``plain_rows``):
    only the rows with a decision or a stored judge label set become Python objects."""
    for sliced, plain, items, provenance in _batches(dataset, store, whose, batch_size, text, True, plain=True):
        yield ExportBatch(sliced, plain, items, provenance)


def _batches(
    dataset: Dataset,
    store: LabelStore | None,
    whose: Whose,
    batch_size: int,
    text: bool,
    light: bool,
    plain: bool,
) -> Iterator[tuple[pa.Table, np.ndarray | None, list[ExportedExample], RowProvenance | None]]:
    from ragviz.data.ragbench import has_dotted_response_key

    whose = as_selection(whose)  # a name is a person's
    person = store_annotator(whose) if whose != GOLD else None  # the store's name for whose labels
    statuses: Mapping[str, Any] = store.statuses(person) if (store is not None and person) else {}
    if store is not None and whose == GOLD:  # the team's gold labels: uid -> Gold, for the examples that have them
        statuses = round_gold(dataset, current_round_table(dataset, store))  # labels built as rows are reached
    if store is not None and whose is not None and whose.kind == "version":  # judge:NAME: uid -> its latest labels
        statuses = store.judge.of_prompt(whose.prompt_version)  # its rows' labels and llm_ copies (label_source llm)
    judged = store.judge.judged_uids() if store is not None else set()
    members = store.audits.audit_members() if store is not None else set()
    n_sentences = dataset.n_context_sentences
    uids = dataset.uids
    table = dataset.table
    if "documents_sentences" in table.column_names:
        n_docs_col = pc.fill_null(pc.list_value_length(table.column("documents_sentences")), 0)
        n_documents = n_docs_col.to_numpy().tolist()
    else:
        n_documents = [0] * len(dataset)
    columns = table.column_names if text else [c for c in table.column_names if c not in TEXT_COLUMNS]
    columnar = plain and plain_table(table.schema)
    for start in range(0, table.num_rows, batch_size):
        sliced = table.slice(start, batch_size)
        mask: np.ndarray | None = None
        provenance = None
        if columnar and plain_batch(sliced):
            mask, provenance = plain_rows(sliced, uids[start : start + sliced.num_rows], judged, statuses, members)
        positions = range(sliced.num_rows) if mask is None else np.flatnonzero(~mask).tolist()
        selected = sliced.select(columns)
        rows = selected.take(pa.array(positions, pa.int64())).to_pylist() if mask is not None else selected.to_pylist()
        # a key written "a." is matched to sentence "a" on loading, which needs the response sentences
        touched = [
            not light or uids[start + k] in judged or uids[start + k] in statuses or has_dotted_response_key(full_row)
            for k, full_row in zip(positions, rows)
        ]
        built = examples_at(dataset, [start + k for k, t in zip(positions, touched) if t])  # their rows read at once
        items = []
        for k, full_row, is_touched in zip(positions, rows, touched):
            i = start + k
            uid = uids[i]
            source = RowRef(full_row.get(PATH_COL) or "", full_row.get(ROW_COL) or 0)
            if is_touched:
                example = built[i]
            else:
                fields = full_row if not text else {c: v for c, v in full_row.items() if c not in TEXT_COLUMNS}
                example = example_from_row(fields, full_row.get(SUBSET_COL) or "", source)
            items.append(
                _exported(
                    full_row, example, uid, store, whose, judged, statuses, n_sentences[i], n_documents[i], members
                )
            )
        yield sliced, mask, items, provenance


def _exported(
    full_row: dict[str, Any],
    example: Example,
    uid: str,
    store: LabelStore | None,
    whose: LabelSelection | None,
    judged: set[str],
    statuses: Mapping[str, Any],
    n_sentences: int,
    n_documents: int,
    members: set[str] | frozenset[str] = frozenset(),
) -> ExportedExample:
    row = {k: v for k, v in full_row.items() if k not in BOOKKEEPING}
    if not row.get("dataset_name"):
        # The uid must survive a re-load from a file with another name.
        row["dataset_name"] = example.dataset
    version = statuses if whose is not None and whose.kind == "version" else {}
    stored_judge = version.get(uid) or (store.judge.labels(uid) if store is not None and uid in judged else None)
    judge = judge_labels_of(example, stored_judge)
    if stored_judge is not None:
        row["annotating_model_name"] = stored_judge.provenance.name or row.get("annotating_model_name")

    reviewer = reviewed_at = None
    field_reviewers: dict[str, str] | None = {} if whose == HUMAN else None
    base = base_labels(example, stored_judge)
    if store is not None and whose == GOLD and uid in statuses:
        gold = statuses[uid]
        current = without_contradicting_explanations(gold.labels, base)
        reviewer, reviewed_at = gold.by, gold.at
    elif store is not None and whose == HUMAN and uid in statuses:
        team = store.team_labels(example)
        current = without_contradicting_explanations(team.labels, base) if team.reviewer else base
        reviewer, reviewed_at, field_reviewers = team.reviewer, team.reviewed_at, team.field_reviewers
    elif store is not None and whose is not None and whose.is_person and uid in statuses:
        annotator = whose.annotator
        effective = store.effective(uid, annotator)
        current = without_contradicting_explanations(fold_labels(base, effective, example, annotator), base)
        status = status_of(effective)
        if status.reviewed:
            reviewer, reviewed_at = annotator, status.last_ts
    else:
        current = base
    audit_sample = reviewer is not None and uid in members
    if reviewer is None and current is not None and current.provenance.source == "human":
        # A re-loaded reviewed export that this annotator left alone keeps its reviewer and audit flag.
        reviewer, reviewed_at = current.provenance.name or None, current.provenance.time
        label_source = "human"
        flag = full_row.get("audit_sample")  # a re-loaded cell: a bool, or the text of one
        audit_sample = uid in members or flag is True or (isinstance(flag, str) and flag.strip().lower() == "true")
    elif whose == GOLD and uid in statuses:
        label_source = statuses[uid].source  # "agreed" or "adjudicated"
    else:
        label_source = "human" if reviewer is not None else "llm"
    scores = trace_scores(current, n_sentences)
    return ExportedExample(
        row,
        example,
        current,
        judge,
        scores,
        label_source,
        reviewer,
        reviewed_at,
        n_documents,
        audit_sample,
        field_reviewers,
    )


def export_row(item: ExportedExample) -> dict[str, Any]:
    """The RAGBench row of one exported example: every input field under its input name, the label fields holding the
    annotator's CURRENT labels (``LabelStore.current_labels``: the judge's labels when the person changed nothing),
    the four TRACe scores recomputed from them, ``llm_``-prefixed copies of the judge's labels and the provenance
    fields ``label_source`` / ``reviewer`` / ``reviewed_at`` / ``audit_sample`` (true when the row was reviewed as a
    member of an audit sample, :mod:`ragviz.store.audit_samples`: only those rows may correct the judge's means,
    ``ragviz estimate``). Whose labels ``None`` or the judge's: the labels as loaded, with the store's judge labels over
    them. The gold export (:data:`~ragviz.analysis.labelsets.selection.GOLD`) holds each example's gold labels
    (:mod:`ragviz.analysis.team.gold`) with ``label_source`` ``"agreed"`` (``reviewer``: the annotators who agreed) or
    ``"adjudicated"`` (``reviewer``: who settled it); the rest keep the judge's labels (``"llm"``). The team's latest
    export (:data:`~ragviz.analysis.labelsets.selection.HUMAN`, the Dashboard's ``human`` label set) holds every
    annotator's latest decision per field, ``reviewer`` / ``reviewed_at`` of the newest decision, and on rows a person
    decided ``field_reviewers``: JSON ``{field: annotator}`` where more than one person's decisions are in the row. A
    response sentence whose verdict the person flipped carries their note as its explanation, never the judge's text
    for the other verdict (that stays in ``llm_sentence_support_information``). Loading such a file again
    (``ragviz.data.ragbench.example_from_row``) gives back the same current labels and scores, and the judge's labels
    from the ``llm_`` fields."""
    row = dict(item.row)
    row.update(export_fields(item))
    return row


def export_fields(item: ExportedExample) -> dict[str, Any]:
    """The fields an export writes over (or after) the input row: labels, scores, the judge's
    ``llm_`` labels and provenance, in the order :func:`export_row` puts them."""
    row = labels_to_row(item.current)
    s = item.scores
    row["relevance_score"] = s.relevance
    row["utilization_score"] = s.utilization
    row["completeness_score"] = s.completeness
    row["adherence_score"] = None if s.adherence is None else s.adherence == 1.0
    row.update(labels_to_row(item.judge, LLM_PREFIX))
    row.update(original_inputs(item))
    row["label_source"] = item.label_source if item.current is not None else None
    row["reviewer"] = item.reviewer
    row["reviewed_at"] = item.reviewed_at
    row["audit_sample"] = item.audit_sample
    if item.field_reviewers is not None:  # the team's export: who decided which field, as JSON text
        row["field_reviewers"] = json.dumps(item.field_reviewers, sort_keys=True) if item.field_reviewers else None
    return row


def original_inputs(item: ExportedExample) -> dict[str, Any]:
    """``llm_<field>`` = the judge side's value of each family input the current labels override
    and the judge's labels do not, so a re-load still knows what the person changed (the plain
    field then holds the override): the example's own value, for chunk labels derived from
    sentences the judge's derived flags. A similarity or gold list the row never had is left out
    (a re-loaded judge side then sees the person's value)."""
    from ragviz.metrics.tonic import chunk_flags

    out: dict[str, Any] = {}
    for name in OVERRIDE_FIELDS:
        if item.current is None or getattr(item.current, name) is None:
            continue
        if item.judge is not None and getattr(item.judge, name) is not None:
            continue
        value = overrides_from_row(
            {name: item.example.relevant_ids if name == "relevant_ids" else item.example.extra.get(name)}
        ).get(name)
        if value is None and name in ("chunk_relevant", "chunk_utilized") and item.judge is not None:
            keys = item.judge.relevant_keys if name == "chunk_relevant" else item.judge.utilized_keys
            value = chunk_flags(keys, item.n_documents)
        if value is not None:
            out[LLM_PREFIX + name] = list(value) if isinstance(value, tuple) else value
    return out


def export_rows(dataset: Dataset, store: LabelStore | None, whose: Whose) -> list[dict]:
    """Every example of *dataset* as a RAGBench row holding *whose* labels."""
    return [export_row(item) for item in exported_examples(dataset, store, whose)]


def metrics_records(dataset: Dataset, store: LabelStore | None, whose: Whose) -> list[dict]:
    """Per example: id, dataset, generation_model, the TRACe scores of the current labels,
    trace_mean and label_source (``None`` scores for unlabeled examples)."""
    return metrics_table(dataset, store, whose).to_pylist()


def metrics_table(
    dataset: Dataset,
    store: LabelStore | None,
    whose: Whose,
    batch_size: int = 8192,
    progress: RowsDone | None = None,
) -> pa.Table:
    """:func:`metrics_records` as an Arrow table (columns :data:`METRICS_COLUMNS`): the scores of
    rows the store knows nothing about come from :func:`ragviz.export.columnar.plain_export_columns`
    (no Python object per row), the others' from their current labels."""
    n = len(dataset)
    scores = {m: np.full(n, np.nan) for m in TRACE_METRICS}
    sources = np.full(n, None, dtype=object)
    n_sentences = np.asarray(dataset.n_context_sentences, np.int64)
    start = 0
    for batch in export_batches(dataset, store, whose, batch_size, text=False):
        rows = np.arange(start, start + batch.sliced.num_rows)
        start += batch.sliced.num_rows
        if progress is not None:
            progress(EXPORTING, start, n)
        plain = np.zeros(len(rows), bool) if batch.plain is None else batch.plain
        if plain.any():
            kept = batch.sliced.drop_columns([c for c in TEXT_COLUMNS if c in batch.sliced.column_names])
            columns = plain_export_columns(kept.filter(pa.array(plain)), n_sentences[rows[plain]], batch.provenance)
            for m in TRACE_METRICS:
                values = columns[f"{m}_score"].cast(pa.float64())
                scores[m][rows[plain]] = values.to_numpy(zero_copy_only=False)
            sources[rows[plain]] = columns["label_source"].to_numpy(zero_copy_only=False)
        for i, item in zip(rows[~plain].tolist(), batch.items):
            for m in TRACE_METRICS:
                value = getattr(item.scores, m)
                scores[m][i] = np.nan if value is None else value
            sources[i] = item.label_source if item.current is not None else None
    mean = (scores["relevance"] + scores["utilization"] + scores["completeness"] + scores["adherence"]) / 4
    arrays: dict[str, pa.Array] = {
        "id": pa.array(dataset.ids, pa.string()),
        "dataset": pa.array(dataset.datasets, pa.string()),
        "generation_model": pa.array(dataset.generation_models, pa.string()),
        **{m: pa.array(scores[m], pa.float64(), mask=np.isnan(scores[m])) for m in TRACE_METRICS},
        "trace_mean": pa.array(mean, pa.float64(), mask=np.isnan(mean)),
        "label_source": pa.array(sources, pa.string()),
    }
    return pa.table(arrays)
