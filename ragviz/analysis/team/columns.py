"""The labels each row was loaded with, counted on its Arrow columns: what every labeller of a round holds
on an example nobody changed a label of (:mod:`ragviz.analysis.team.table`).

Per row, the sentence labels :func:`ragviz.analysis.team.gold.unit_values` lists, counted: context sentences
(the ``relevant`` and ``utilized`` units), response sentences (``supported``, ``supporting``), and how many of
them are relevant, utilized, supported. Only rows read here exactly as the row-by-row path reads them count
(:attr:`LoadedCounts.exact`): the row's own labels (no ``llm_`` copy, no stored judge set), keys a loader
neither cleans nor matches (letters, digits, ``_``, ``-``), every sentence a ``[key, text]`` pair, no sentence
key repeated within the row. The judge holds the same labels unless the row says a person made them (``label_source`` ``human``: no judge)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.data.dataset import Dataset, examples_at
from ragviz.data.label_columns import label_columns, label_columns_ok, label_values_ok, present_type
from ragviz.data.model import Example, Sentence
from ragviz.data.ragbench import (
    LABEL_FIELDS,
    LLM_PREFIX,
    RELEVANT,
    ROW_LABEL_FIELDS,
    UNSUPPORTED,
    UTILIZED,
    row_label_sets,
)

__all__ = ["LoadedCounts", "key_examples", "loaded_counts"]


_PAIRS = pa.list_(pa.list_(pa.string()))
_DOCUMENTS = pa.list_(_PAIRS)
_PLAIN_KEY = r"^[0-9A-Za-z_-]+$"


@dataclass(frozen=True)
class LoadedCounts:
    """Per row of a dataset: read exactly here; context and response sentences; relevant, utilized and
    supported ones under the row's labels; whether the judge holds those labels (else there is none)."""

    exact: np.ndarray
    n_context: np.ndarray
    n_response: np.ndarray
    n_relevant: np.ndarray
    n_utilized: np.ndarray
    n_supported: np.ndarray
    judged: np.ndarray


def _children(lists: pa.Array, parents: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """The elements of *lists* (a list array) and each one's row (*parents* per list; -1: not counted, as
    for the elements a null list slot spans)."""
    lists = cast(pa.ListArray, lists)
    offsets = np.asarray(lists.offsets, np.int64)
    valid = np.asarray(lists.is_valid().to_numpy(zero_copy_only=False), bool)
    rows = np.repeat(np.where(valid, parents, -1), np.diff(offsets))
    return lists.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0])), rows


def _sentence_keys(column: pa.Array, depth: int, n: int) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Every sentence key of *column* (``[key, text]`` pairs nested *depth* lists deep) with its row, and per
    row whether each of its sentences is such a pair with a key."""
    values, rows = column, np.arange(n)
    for _ in range(depth):
        values, rows = _children(values, rows)
    pairs = cast(pa.ListArray, values)
    offsets = np.asarray(pairs.offsets, np.int64)
    counted = rows >= 0
    good = np.asarray(pairs.is_valid().to_numpy(zero_copy_only=False), bool) & (np.diff(offsets) == 2)
    starts = offsets[:-1][counted & good]
    keys = pairs.values.take(pa.array(starts)) if len(starts) else pa.array([], pa.string())
    bad = counted & ~good
    exact = np.bincount(rows[bad], minlength=n) == 0
    if keys.null_count:
        null = np.asarray(keys.is_null().to_numpy(zero_copy_only=False), bool)
        exact &= np.bincount(rows[counted & good][null], minlength=n) == 0
    return keys, rows[counted & good], exact


def _listed(keys: pa.Array, key_rows: np.ndarray, listed: pa.Array, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row: how many of its sentence *keys* its *listed* keys (a list per row) name, and whether those
    are plain keys (no white space, no trailing dot: what :func:`ragviz.data.keys.clean_key` leaves as is)."""
    found, list_rows = _children(listed, np.arange(n))
    found, list_rows = found.filter(pa.array(list_rows >= 0)), list_rows[list_rows >= 0]
    plain = np.asarray(pc.match_substring_regex(found, _PLAIN_KEY).to_numpy(zero_copy_only=False), bool)
    exact = np.bincount(list_rows[~plain], minlength=n) == 0
    if not len(keys) or not len(found):
        return np.zeros(n, np.int64), exact
    codes = cast(pa.DictionaryArray, pc.dictionary_encode(pa.concat_arrays([keys, found])))
    index = np.asarray(codes.indices.to_numpy(zero_copy_only=False), np.int64)
    width = len(codes.dictionary) + 1
    listed_pairs = np.sort(list_rows * width + index[len(keys) :])  # np.isin's hashing is far slower here
    pairs = key_rows * width + index[: len(keys)]
    at = np.minimum(np.searchsorted(listed_pairs, pairs), len(listed_pairs) - 1)
    named = listed_pairs[at] == pairs
    return np.bincount(key_rows[named], minlength=n).astype(np.int64), exact


def _repeated(keys: pa.Array, key_rows: np.ndarray, n: int) -> np.ndarray:
    """Per row: does a sentence key of it repeat (the agreement's decisions are one per distinct key,
    :func:`ragviz.analysis.agreement.decisions`; the units here one per sentence)?"""
    if not len(keys):
        return np.zeros(n, bool)
    index = np.asarray(cast(pa.DictionaryArray, pc.dictionary_encode(keys)).indices.to_numpy(), np.int64)
    pairs = np.sort(key_rows * (int(index.max()) + 1) + index)
    again = pairs[1:][pairs[1:] == pairs[:-1]] // (int(index.max()) + 1)
    return np.bincount(again, minlength=n) > 0


def _valid(batch: pa.RecordBatch, name: str) -> np.ndarray:
    if present_type(batch.schema, name) is None:
        return np.zeros(batch.num_rows, bool)
    return np.asarray(batch.column(name).is_valid().to_numpy(zero_copy_only=False), bool)


def _batch_counts(batch: pa.RecordBatch) -> tuple[np.ndarray, ...]:
    n = batch.num_rows
    table = pa.Table.from_batches([batch])
    if not label_values_ok(table):
        return (np.zeros(n, bool),) + tuple(np.zeros(n, np.int64) for _ in range(5)) + (np.zeros(n, bool),)
    labels = label_columns(table)
    exact = labels.labeled.copy()
    for name in LABEL_FIELDS:  # the judge's copy: the plain fields are then a person's, compared one by one
        exact &= ~_valid(batch, LLM_PREFIX + name)
    context, context_rows, ok = (
        _sentence_keys(batch.column("documents_sentences"), 2, n)
        if present_type(batch.schema, "documents_sentences") is not None
        else (pa.array([], pa.string()), np.zeros(0, np.int64), np.ones(n, bool))
    )
    exact &= ok
    response, response_rows, ok = (
        _sentence_keys(batch.column("response_sentences"), 1, n)
        if present_type(batch.schema, "response_sentences") is not None
        else (pa.array([], pa.string()), np.zeros(0, np.int64), np.ones(n, bool))
    )
    exact &= ok & ~_repeated(context, context_rows, n) & ~_repeated(response, response_rows, n)
    n_relevant, ok = _listed(context, context_rows, labels.columns[RELEVANT], n)
    exact &= ok
    n_utilized, ok = _listed(context, context_rows, labels.columns[UTILIZED], n)
    exact &= ok
    n_unsupported, ok = _listed(response, response_rows, labels.columns[UNSUPPORTED], n)
    exact &= ok
    n_context = np.bincount(context_rows, minlength=n).astype(np.int64)
    n_response = np.bincount(response_rows, minlength=n).astype(np.int64)
    human = np.zeros(n, bool)
    if present_type(batch.schema, "label_source") is not None:
        said = cast(
            pa.Array, pc.fill_null(pc.equal(batch.column("label_source"), pa.scalar("human")), pa.scalar(False))
        )
        human = np.asarray(said.to_numpy(zero_copy_only=False), bool)
    return exact, n_context, n_response, n_relevant, n_utilized, n_response - n_unsupported, ~human


def loaded_counts(dataset: Dataset) -> LoadedCounts:
    """:class:`LoadedCounts` of every row of *dataset* (nothing exact when its columns are not RAGBench's types)."""
    schema = dataset.table.schema
    n = len(dataset)
    types = {"documents_sentences": _DOCUMENTS, "response_sentences": _PAIRS}
    if not label_columns_ok(schema) or any(present_type(schema, c) not in (None, t) for c, t in types.items()):
        none = np.zeros(n, np.int64)
        return LoadedCounts(np.zeros(n, bool), none, none, none, none, none, np.zeros(n, bool))
    names = [
        c for c in (*LABEL_FIELDS, *(LLM_PREFIX + f for f in LABEL_FIELDS), *types, "label_source") if c in schema.names
    ]
    parts = [_batch_counts(b) for b in dataset.table.select(names).to_batches()]
    if not parts:
        none = np.zeros(0, np.int64)
        return LoadedCounts(np.zeros(0, bool), none, none, none, none, none, np.zeros(0, bool))
    return LoadedCounts(*(np.concatenate([p[k] for p in parts]) for k in range(7)))


def _document_keys(column: pa.Array) -> list[tuple[tuple[str, ...], ...] | None]:
    """Per row of *column* (``documents_sentences``): its documents' sentence keys, ``None`` when a sentence
    is not a ``[key, text]`` pair with a key (such a row is built whole)."""
    n = len(column)
    docs, doc_rows = _children(column, np.arange(n))
    keys, key_docs, exact_docs = _sentence_keys(docs, 1, len(docs))
    exact = np.ones(n, bool)
    np.logical_and.at(exact, doc_rows[doc_rows >= 0], exact_docs[doc_rows >= 0])
    per_doc: list[list[str]] = [[] for _ in range(len(docs))]
    for doc, key in zip(key_docs.tolist(), keys.to_pylist()):
        per_doc[doc].append(key)
    out: list[list[tuple[str, ...]] | None] = [[] if ok else None for ok in exact.tolist()]
    for doc, row in enumerate(doc_rows.tolist()):
        if row >= 0 and (found := out[row]) is not None:
            found.append(tuple(per_doc[doc]))
    return [None if d is None else tuple(d) for d in out]


def key_examples(dataset: Dataset, rows: Sequence[int]) -> dict[int, Example]:
    """Row index -> the example at each of *rows* with its labels and sentence keys but not its texts (the
    context sentences' texts are empty): what comparing labels reads (:func:`ragviz.analysis.team.gold.rounds_at`),
    without a Python string per sentence text. A row whose sentences are not all ``[key, text]`` pairs is built
    whole (:func:`ragviz.data.dataset.examples_at`)."""
    if present_type(dataset.table.schema, "documents_sentences") not in (None, _DOCUMENTS):
        return examples_at(dataset, rows)
    if present_type(dataset.table.schema, "documents_sentences") is None:
        docs: list[tuple[tuple[str, ...], ...] | None] = [() for _ in rows]
    else:
        docs = [None] * len(rows)
        column = dataset.table.column("documents_sentences")
        starts = np.cumsum([0, *(len(c) for c in column.chunks)])
        wanted = np.asarray(rows, np.int64)
        which = np.searchsorted(starts, wanted, side="right") - 1
        for c in np.unique(which).tolist():
            at = np.flatnonzero(which == c)
            taken = column.chunks[c].take(pa.array(wanted[at] - starts[c]))
            for k, found in zip(at.tolist(), _document_keys(taken)):
                docs[k] = found
    out = examples_at(dataset, [i for i, d in zip(rows, docs) if d is None])
    labelled = dataset.rows_at(
        [i for i, d in zip(rows, docs) if d is not None], (*ROW_LABEL_FIELDS, "response_sentences")
    )
    ids, names, models = dataset.ids, dataset.datasets, dataset.generation_models
    shared: dict[str, Sentence] = {}  # one (immutable) keyed sentence per key: the keys repeat row after row

    def sentence(key: str) -> Sentence:
        found = shared.get(key)
        if found is None:
            found = shared[key] = Sentence(key, "")
        return found

    for i, d, row in zip(
        [i for i, d in zip(rows, docs) if d is not None], [d for d in docs if d is not None], labelled
    ):
        labels, judge = row_label_sets(row)
        out[i] = Example(
            id=ids[i],
            dataset=names[i],
            question="",
            documents=(),
            document_sentences=tuple(tuple(sentence(k) for k in doc) for doc in d),
            response="",
            response_sentences=tuple(Sentence(str(k), str(t)) for k, t in (row.get("response_sentences") or ())),
            generation_model=models[i],
            labels=labels,
            judge_labels=judge,
        )
    return out
