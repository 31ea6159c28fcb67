"""Issue 11 (scale): the synthetic RAGBench generator loads cleanly; streamed exports, columnar
JSONL loading, the batched bootstrap and columnar triage give today's results."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.keys import context_key, response_key
from ragviz.data.load import load
from tests.sample import SAMPLE_DATA
from tests.synthetic import make_synthetic


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """300 synthetic rows as Parquet and JSONL (small batches, so several batches are joined)."""
    out = tmp_path_factory.mktemp("syn") / "syn"
    paths = make_synthetic().write(300, str(out), seed=3, batch=128)
    return {p.suffix[1:]: p for p in paths}


def test_synthetic_rows_load_without_problems_and_use_the_ragbench_key_scheme(synthetic):
    for fmt in ("parquet", "jsonl"):
        result = load(synthetic[fmt])
        assert result.errors == [] and result.warnings == [], fmt
        assert len(result.dataset) == 300
    dataset = load(synthetic["parquet"]).dataset
    for i in range(0, 300, 7):
        example = dataset.example(i)
        assert 1 <= len(example.document_sentences) <= 16
        for d, doc in enumerate(example.document_sentences):
            assert 1 <= len(doc) <= 550
            assert [s.key for s in doc] == [context_key(d, j) for j in range(len(doc))]
        assert 1 <= len(example.response_sentences) <= 26
        assert [s.key for s in example.response_sentences] == [
            response_key(j) for j in range(len(example.response_sentences))
        ]
        keys = set(example.context_keys())
        assert set(example.labels.relevant_keys) <= keys
        assert set(example.labels.utilized_keys) <= set(example.labels.relevant_keys)


def test_synthetic_rows_are_deterministic_by_seed(tmp_path):
    make = make_synthetic()
    a = make.write(50, str(tmp_path / "a"), seed=1, jsonl=False)[0]
    b = make.write(50, str(tmp_path / "b"), seed=1, jsonl=False)[0]
    c = make.write(50, str(tmp_path / "c"), seed=2, jsonl=False)[0]
    assert pq.read_table(a).equals(pq.read_table(b))
    assert not pq.read_table(a).equals(pq.read_table(c))


# -- streamed export ------------------------------------------------------------------------------
def _store_with_edits(dataset, db):
    """Human decisions on a few examples (relevance toggles, support flips, reviews) and stored
    judge labels for a few others."""
    from ragviz.data.labels import Change, field_value, support_field, toggle_key
    from ragviz.store.label_store import LabelStore

    store = LabelStore(db)
    store.judge.save_many([(dataset.example(i).uid, dataset.example(i).labels) for i in range(1, len(dataset), 9)])
    for k, i in enumerate(range(0, len(dataset), 5)):
        example = dataset.example(i)
        cur = store.current_labels(example, "alice")
        changes = [
            Change(
                "relevant_keys",
                field_value(cur, "relevant_keys"),
                toggle_key(cur.relevant_keys, example.context_keys()[-1]),
            )
        ]
        if k % 2 and cur.support:
            name = support_field(cur.support[0].key)
            old = field_value(cur, name)
            changes.append(Change(name, old, {**old, "supported": not old["supported"]}))
        if k % 3 == 0:
            changes.append(Change("review", None, "reviewed"))
        store.record(example.uid, "alice", changes)
    return store


def _reference(dataset, store, annotator):
    """The export as it was built before streaming: every example whole, all rows as dicts."""
    from ragviz.export.files import jsonl_bytes
    from ragviz.export.rows import export_row, exported_batches
    from ragviz.export.tables import rows_table

    rows = [export_row(item) for _, items in exported_batches(dataset, store, annotator, light=False) for item in items]
    return jsonl_bytes(rows), rows_table(rows)


@pytest.mark.parametrize("source", ["sample", "synthetic"])
def test_streamed_export_writes_the_rows_of_the_whole_export(source, synthetic, tmp_path):
    import io

    from ragviz.export.files import write_export

    if source == "sample":
        dataset, store, annotator = load(SAMPLE_DATA).dataset, None, None
    else:
        dataset = load(synthetic["parquet"]).dataset
        store, annotator = _store_with_edits(dataset, tmp_path / "l.db"), LabelSelection.of("alice")
    old_jsonl, old_table = _reference(dataset, store, annotator)
    for batch_size in (7, 2048):
        buf = io.BytesIO()
        n_rows, n_human = write_export(dataset, store, annotator, "jsonl", buf, batch_size=batch_size)
        assert buf.getvalue() == old_jsonl
        assert n_rows == len(dataset)
        assert n_human == old_table.column("label_source").to_pylist().count("human")
        assert (n_human > 0) == (source == "synthetic")
        out = tmp_path / f"out{batch_size}.parquet"
        write_export(dataset, store, annotator, "parquet", out, batch_size=batch_size)
        new_table = pq.read_table(out)
        assert new_table.schema.equals(old_table.schema)
        assert new_table.equals(old_table)
    if store is not None:
        store.close()


# -- JSON Lines through Arrow's reader ------------------------------------------------------------
def _both_paths(data: bytes, name: str):
    from ragviz.data.formats import json_rows
    from ragviz.data.problems import Report

    fast_report, slow_report = Report(), Report()
    fast = json_rows.load_jsonl(data, name, "s", fast_report)
    slow = json_rows.load_rows(
        ((n, json.loads(line)) for n, line in enumerate(data.decode("utf-8").split("\n"), start=1) if line.strip()),
        name,
        "s",
        slow_report,
    )
    return fast, slow, fast_report, slow_report


def test_jsonl_read_by_arrow_loads_the_same_table_as_row_by_row(synthetic):
    from ragviz.data.formats.json_rows import _arrow_jsonl
    from tests.ragbench_data import SUBSETS, require_ragbench, shard

    require_ragbench()
    shards = "".join(
        json.dumps(r, ensure_ascii=False) + "\n"
        for s in SUBSETS
        for r in pq.read_table(shard(s)).slice(0, 60).to_pylist()
    ).encode()
    for name, data in (("syn.jsonl", synthetic["jsonl"].read_bytes()), ("shards.jsonl", shards)):
        assert _arrow_jsonl(data) is not None, name
        fast, slow, fast_report, slow_report = _both_paths(data, name)
        assert fast.table.schema.equals(slow.table.schema) and fast.table.equals(slow.table), name
        assert fast_report.errors == slow_report.errors == [] and fast_report.warnings == slow_report.warnings == []


@pytest.mark.parametrize(
    "change",
    [
        lambda r: {**r, "adherence_score": 1},  # a number for a boolean: ignored with a warning
        lambda r: {**r, "id": 7},  # an integer id becomes "7"
        lambda r: {**r, "id": ""},  # an empty id gets a content hash
        lambda r: {**r, "reviewed_at": "2026-11-23T09:00:00"},  # Arrow would read a timestamp
        lambda r: {**r, "all_relevant_sentence_keys": ["0a", None]},  # an error on that line
        lambda r: {k: v for k, v in r.items() if k != "documents_sentences"},  # split row by row
        lambda r: None,  # a null line, on which Arrow's reader crashes
    ],
)
def test_jsonl_that_arrow_cannot_read_exactly_goes_row_by_row(change, synthetic):
    from ragviz.data.formats.json_rows import _arrow_jsonl

    rows = [json.loads(line) for line in synthetic["jsonl"].read_text().splitlines()[:5]]
    rows[2] = change(rows[2])
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    assert _arrow_jsonl(data) is None
    result = load_bytes_jsonl(data)
    assert len(result.dataset) >= 4


def load_bytes_jsonl(data: bytes):
    from ragviz.data.load import load_bytes

    return load_bytes("f.jsonl", data)


def test_jsonl_with_a_blank_line_keeps_line_numbers_in_problems(synthetic):
    from ragviz.data.load import load_bytes

    lines = synthetic["jsonl"].read_text().splitlines()[:3]
    bad = json.loads(lines[2])
    bad["question"] = 5
    data = (lines[0] + "\n\n" + lines[1] + "\n" + json.dumps(bad) + "\n").encode()
    result = load_bytes("f.jsonl", data)
    assert [str(p) for p in result.errors] == ["f.jsonl:4: question: expected a string, got int"]
    assert result.dataset.table.column("_row").to_pylist() == [1, 3]


# -- bootstrap in batches -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shard_scores():
    """Per RAGBench test row: the four TRACe scores of its own labels."""
    from ragviz.metrics.trace import dataset_trace_records
    from tests.ragbench_data import require_ragbench

    dataset = load(require_ragbench()).dataset
    return list(dataset_trace_records(dataset)), dataset


def _bootstrap_whole_matrix(values, n_resamples=2000, level=0.95, seed=0, expanded=True):
    """The bootstrap as it was: one n_resamples x n matrix of indices; *expanded*: each end moved away from the mean
    by Hesterberg's sqrt(n / (n - 1)) t_(n-1) / z and kept in [0, 1] (what the app shows)."""
    import numpy as np
    from scipy import stats as sps

    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(n_resamples, len(data)))].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    if not expanded:
        return low, high
    n, mean = len(data), data.mean()
    grow = (n / (n - 1)) ** 0.5 * sps.t.ppf(1 - alpha, n - 1) / sps.norm.ppf(1 - alpha)
    return max(0.0, mean - grow * (mean - low)), min(1.0, mean + grow * (high - mean))


@pytest.mark.parametrize("batch", [1 << 20, 5000, 1])
def test_batched_bootstrap_gives_the_whole_matrix_intervals_on_the_shards(batch, shard_scores, monkeypatch):
    from ragviz.analysis import stats
    from ragviz.metrics.trace import TRACE_METRICS

    monkeypatch.setattr(stats, "BOOTSTRAP_BATCH", batch)
    records, _ = shard_scores
    for metric in TRACE_METRICS:
        for subset in (None, "covidqa_test"):
            values = [r[metric] for r in records if r[metric] is not None and subset in (None, r["dataset"])]
            n_resamples = 2000 if batch > 1 else 50
            if set(values) <= {0.0, 1.0}:  # 0/1 values (adherence) take the Wilson interval, not the bootstrap
                continue
            ci = stats.bootstrap_mean_ci(values, n_resamples=n_resamples)
            low, high = _bootstrap_whole_matrix(values, n_resamples=n_resamples)
            assert (round(ci.low, 3), round(ci.high, 3)) == (round(low, 3), round(high, 3))
            assert ci.low == pytest.approx(low, abs=1e-12) and ci.high == pytest.approx(high, abs=1e-12)


# -- triage from counts ---------------------------------------------------------------------------
def _leverage_by_applying_each_change(items, metrics, top):
    """Leverage as it was computed: every candidate change applied and scored (single_changes)."""
    from ragviz.analysis.dashboard.triage import Leverage, single_changes
    from ragviz.metrics.trace import TRACE_METRICS

    best = {m: [] for m in metrics}
    n_labeled = 0
    for index, example, labels in items:
        if labels is None:
            continue
        n_labeled += 1
        changes = single_changes(example, labels)
        largest = {}
        for metric in TRACE_METRICS:
            moves = [(c.description, d) for c in changes if (d := c.deltas[metric])]
            if moves:
                largest[metric] = max(moves, key=lambda m: abs(m[1]))
        effect = 0.0  # ties: the example's own size of effect, its best moves summed in metric order
        for metric in TRACE_METRICS:
            effect = effect + (abs(largest[metric][1]) if metric in largest else 0.0)
        for metric in metrics:
            if metric in largest:
                description, delta = largest[metric]
                best[metric].append((index, example.uid, description, delta, effect))
    out = {}
    for metric, found in best.items():
        found.sort(key=lambda t: (-abs(t[3]), -t[4], t[0]))
        out[metric] = [Leverage(i, uid, metric, desc, d, d / n_labeled) for i, uid, desc, d, _ in found[:top]]
    return out


def _awkward(example, labels, k):
    """Label sets real data has: duplicate and stray keys, no stored unsupported list, undecided
    verdicts, a repeated support entry."""
    from ragviz.data.model import SentenceSupport

    keys = example.context_keys()
    if k % 4 == 0 and keys:
        return labels.replace(relevant_keys=(*labels.relevant_keys, keys[0], keys[0], "9zz"))
    if k % 4 == 1:
        return labels.replace(unsupported_keys=None)
    if k % 4 == 2 and labels.support:
        first = labels.support[0]
        undecided = SentenceSupport(first.key, None, (), "")
        return labels.replace(support=(undecided, *labels.support[1:], first), unsupported_keys=None)
    return labels.replace(utilized_keys=(*labels.utilized_keys, *labels.relevant_keys[:1]))


def test_leverage_from_counts_gives_the_lists_of_applying_every_change(shard_scores):
    from ragviz.analysis.dashboard.triage import leverage_by_metric
    from ragviz.metrics.trace import TRACE_METRICS

    _, dataset = shard_scores
    items = [(i, dataset.example(i), dataset.example(i).labels) for i in range(len(dataset))]
    assert leverage_by_metric(items, TRACE_METRICS, 10_000) == _leverage_by_applying_each_change(
        items, TRACE_METRICS, 10_000
    )
    awkward = [(i, e, None if lab is None else _awkward(e, lab, i)) for i, e, lab in items[::3]]
    assert leverage_by_metric(awkward, TRACE_METRICS, 10_000) == _leverage_by_applying_each_change(
        awkward, TRACE_METRICS, 10_000
    )
    assert leverage_by_metric(awkward, ("adherence",), 5) == _leverage_by_applying_each_change(
        awkward, ("adherence",), 5
    )
