"""The Data page's label-quality report counted on columns (quality_scan.scan_dataset) is the per-row
reference (quality.find_issues through scan_rows) to the issue: on the shared RAGBench shards and on
synthetic rows with every IssueKind planted, over chunked, sliced and partial tables."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest

from ragviz.analysis.quality.issues import ISSUE_KINDS, find_issues, issue_rows
from ragviz.analysis.quality.scan import columnar_ok, issue_counts_per_row, scan_dataset, scan_rows
from ragviz.data import dotted_keys as dk
from ragviz.data import ragbench as rb
from ragviz.data.dataset import Dataset
from ragviz.data.keys import context_key, response_key
from ragviz.data.load import load
from ragviz.metrics.trace import dataset_adherence, trace_scores
from tests.ragbench_data import require_ragbench


def _reference_counts(ds: Dataset) -> list[Counter[str]]:
    """Per row, the issues find_issues reports (kind -> occurrences)."""
    out = []
    for i, row in enumerate(ds.iter_rows()):
        ex = ds.example(i)
        labels = dk.match_response_keys(rb.labels_from_row(row), set(ex.response_keys()))  # as loaded
        issues = find_issues(set(ex.context_keys()), ex.response_keys(), labels)
        out.append(Counter(kind.value for kind, _, _ in issues))
    return out


def _assert_same_as_reference(ds: Dataset) -> None:
    assert columnar_ok(ds.table)
    per_row = issue_counts_per_row(ds.table, len(ds))
    assert per_row is not None
    for i, expected in enumerate(_reference_counts(ds)):
        got = {k: int(per_row[k][i]) for k in ISSUE_KINDS if per_row[k][i]}
        assert got == dict(expected), (i, ds.row(i))
    columnar, rows = scan_dataset(ds), scan_rows(ds)
    assert columnar == rows
    assert issue_rows(columnar.issue_counts, columnar.example_counts) == issue_rows(
        rows.issue_counts, rows.example_counts
    )


@pytest.mark.conformance
def test_columnar_scan_is_the_reference_on_ragbench():
    ds = load([require_ragbench()]).dataset
    assert ds.table.column("documents_sentences").num_chunks > 1  # several shards: several chunks
    _assert_same_as_reference(ds)


# -- synthetic rows with every kind planted ----------------------------------------------------
NON_KEYS = ["general", "supported_without_sentence", "", "0", "A1", "well known", "0b c"]


def _messy(valid: list[str], shaped_unknown: list[str], rng: random.Random, k: int) -> list[str]:
    """k keys drawn from valid keys, their dotted / padded forms, unknown keys of the right shape and non-keys."""
    out = []
    for _ in range(k):
        pick = rng.random()
        if valid and pick < 0.5:
            out.append(rng.choice(valid))
        elif valid and pick < 0.65:
            out.append(rng.choice(valid) + rng.choice([".", " .", "..", " ", "\t"]))
        elif valid and pick < 0.7:
            out.append(" " + rng.choice(valid))
        elif pick < 0.85:
            out.append(rng.choice(shaped_unknown))
        else:
            out.append(rng.choice(NON_KEYS))
        if out and rng.random() < 0.1:
            out.append(out[-1])  # a duplicate, as listed
    return out


def _row(i: int, rng: random.Random) -> dict:
    docs = [[[context_key(d, j), f"s{d}{j}."] for j in range(rng.randint(0, 4))] for d in range(rng.randint(0, 3))]
    resp = [[response_key(j), f"r{j}."] for j in range(rng.randint(0, 4))]
    if rng.random() < 0.05:
        resp.append(list(resp[0]) if resp else ["a", "x."])  # a response key given twice
    ctx = [k for doc in docs for k, _ in doc]
    rkeys = [k for k, _ in resp]
    row: dict = {
        "id": f"q{i}",
        "question": "Q?",
        "documents": [" ".join(t for _, t in doc) for doc in docs],
        "response": " ".join(t for _, t in resp),
        "documents_sentences": docs,
        "response_sentences": resp,
        "dataset_name": "syn",
    }
    shape = rng.random()
    if shape < 0.1:
        return row  # unlabeled
    if shape < 0.15:
        row[rb.RELEVANCE_EXPLANATION] = "only an explanation"  # labeled: every response sentence lacks support
        return row
    ctx_unknown, resp_unknown = ["7c", "0z", "12a", "3b"], ["z", "q", "ab"]
    row[rb.RELEVANT] = _messy(ctx, ctx_unknown, rng, rng.randint(0, 5))
    row[rb.UTILIZED] = _messy(ctx, ctx_unknown, rng, rng.randint(0, 4))
    support = []
    for key in rkeys:
        if rng.random() < 0.1:
            continue  # missing support
        shown = key + "." if rng.random() < 0.1 else key
        entry = {
            "response_sentence_key": shown,
            "fully_supported": rng.choice([True, False, None, None]),
            "supporting_sentence_keys": _messy(ctx, ctx_unknown, rng, rng.randint(0, 3)),
            "explanation": "e",
        }
        support.append(entry)
        if rng.random() < 0.1:
            support.append({**entry, "fully_supported": not entry["fully_supported"]})  # second entry, same key
    if rng.random() < 0.1:
        support.append(
            {"response_sentence_key": rng.choice(resp_unknown + NON_KEYS), "fully_supported": False, "explanation": ""}
        )
    row[rb.SUPPORT] = support
    if rng.random() < 0.8:  # else no stored list: nothing to disagree with
        row[rb.UNSUPPORTED] = _messy(rkeys, resp_unknown, rng, rng.randint(0, 3))
    return row


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    rng = random.Random(11)
    rows = [_row(i, rng) for i in range(600)]
    path = tmp_path_factory.mktemp("planted") / "planted.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return load([path]).dataset


def test_every_kind_is_planted_and_counted_as_the_reference_does(planted):
    scan = scan_dataset(planted)
    assert all(scan.issue_counts[k] > 0 for k in ISSUE_KINDS), scan.issue_counts
    assert 0 < len(scan.flagged_rows) < len(planted)
    _assert_same_as_reference(planted)


def test_chunked_and_sliced_tables_count_the_same(planted):
    table = planted.table
    chunked = Dataset(pa.concat_tables([table.slice(0, 123), table.slice(123, 300), table.slice(423)]))
    assert chunked.table.column(rb.SUPPORT).num_chunks == 3
    _assert_same_as_reference(chunked)
    _assert_same_as_reference(Dataset(table.slice(57, 211)))


def test_rows_scanned_a_slice_at_a_time_count_the_same(planted, monkeypatch):
    from ragviz.analysis.quality import scan as quality_scan

    whole = issue_counts_per_row(planted.table, len(planted))
    monkeypatch.setattr(quality_scan, "SCAN_ROWS", 37)
    sliced = issue_counts_per_row(planted.table, len(planted))
    assert whole is not None and sliced is not None
    assert all(np.array_equal(whole[k], sliced[k]) for k in ISSUE_KINDS)
    _assert_same_as_reference(planted)


def test_tables_without_some_columns(planted):
    for dropped in ([rb.UNSUPPORTED], [rb.SUPPORT], [rb.RELEVANT, rb.UTILIZED], ["response_sentences"]):
        _assert_same_as_reference(Dataset(planted.table.drop_columns(dropped)))


def test_other_types_go_row_by_row_with_the_same_report(planted):
    table = planted.table
    as_text = table.set_column(
        table.column_names.index(rb.RELEVANT),
        rb.RELEVANT,
        pa.array([None if v is None else json.dumps(v) for v in table.column(rb.RELEVANT).to_pylist()]),
    )
    odd = Dataset(as_text)
    assert not columnar_ok(odd.table)
    assert scan_dataset(odd) == scan_rows(odd)


def test_empty_dataset_has_no_issue():
    scan = scan_dataset(Dataset.empty())
    assert scan.issue_counts == dict.fromkeys(ISSUE_KINDS, 0) and scan.row_kinds == []


# -- the adherence column of the same index (Review's filters) ----------------------------------
def _adherence_by_row(ds: Dataset) -> list[float | None]:
    return [trace_scores(rb.labels_from_row(row), 0).adherence for row in ds.iter_rows(rb.LABEL_FIELDS)]


def test_dataset_adherence_is_trace_scores_row_by_row(planted):
    expected = _adherence_by_row(planted)
    assert None in expected and 0.0 in expected and 1.0 in expected
    assert dataset_adherence(planted, batch_size=97) == expected
    no_labels = Dataset(planted.table.drop_columns([c for c in rb.LABEL_FIELDS if c in planted.table.column_names]))
    assert dataset_adherence(no_labels) == [None] * len(planted)
    odd = planted.table.set_column(
        planted.table.column_names.index(rb.RELEVANT),
        rb.RELEVANT,
        pa.array([None if v is None else json.dumps(v) for v in planted.table.column(rb.RELEVANT).to_pylist()]),
    )
    assert dataset_adherence(Dataset(odd)) == _adherence_by_row(Dataset(odd))


@pytest.mark.conformance
def test_dataset_adherence_on_ragbench():
    ds = load([require_ragbench()]).dataset
    assert dataset_adherence(ds) == _adherence_by_row(ds)


def test_dataset_columns_as_row_by_row(planted):
    """uids, ids, datasets and generation models joined on the columns are what each Example says."""
    table = planted.table
    n = len(table)
    names = pa.array([None if i % 5 == 0 else ("" if i % 5 == 1 else f"set{i % 3}") for i in range(n)], pa.string())
    models = pa.array([None if i % 4 == 0 else f"gen{i % 2}" for i in range(n)], pa.string())
    varied = table.set_column(table.column_names.index("dataset_name"), "dataset_name", names)
    ds = Dataset(varied.append_column("generation_model_name", models))
    examples = [ds.example(i) for i in range(n)]
    assert ds.uids == [ex.uid for ex in examples]
    assert ds.datasets == [ex.dataset for ex in examples]
    assert ds.ids == [ex.id for ex in examples] and ds.generation_models == [ex.generation_model for ex in examples]
    bare = Dataset(table.drop_columns(["dataset_name", "id"]))
    assert bare.uids == ["planted//"] * n and bare.ids == [""] * n


def test_sentence_keys_are_taken_chunk_by_chunk_before_the_chunks_are_joined():
    """At 1M rows the documents' ``[key, text]`` pairs joined into one array overflowed a string array's
    2 GiB of offsets (ArrowInvalid on the Data page); only each chunk's keys are joined."""
    from ragviz.analysis.quality import scan as qs

    doc_type = pa.list_(pa.list_(pa.list_(pa.string())))
    column = pa.chunked_array(
        [pa.array([[[["0a", "t" * 100], ["0b", "u"]]]], doc_type), pa.array([[], [[["1a", "v"]]]], doc_type)]
    )
    picked: list[int] = []

    def keys_of(pairs: pa.Array) -> pa.Array:
        picked.append(len(pairs))
        return qs._first(pairs)

    keys, rows = qs._flatten(column, 2, keys_of)
    assert picked == [2, 1]
    assert keys.to_pylist() == ["0a", "0b", "1a"] and rows.tolist() == [0, 0, 2]
    assert qs._sentence_keys(pa.table({"documents_sentences": column}), "documents_sentences", 2)[0].type == pa.string()
