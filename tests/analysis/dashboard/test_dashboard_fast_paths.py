"""Issue 11, the Dashboard's cold first render at 1,000,000 rows: each faster path gives what the
path it replaced gave, on small synthetic sets (the replaced code is copied here as the reference).

- Poisson weights drawn for a few rows alone (the generator advanced past the others) are those
  rows of their whole block; resample sums a block at a time over distinct presence patterns, in
  threads, are the sums of one pass of 4,096-row chunks (to float rounding; weights exactly).
- Triage move sizes from one candidate per kind of context sentence are those of every sentence.
- Row figures in threads, ``n_context_sentences`` from list offsets, the uid index, the audit
  fingerprint, AUROC and RMSE of arrays, and the Dashboard with its decided examples built once.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from ragviz.analysis import poisson_bootstrap, stats
from ragviz.analysis.dashboard import figures as dashboard
from ragviz.analysis.dashboard import rows as dashboard_rows
from ragviz.analysis.dashboard.aggregates import subset_mean_state
from ragviz.analysis.dashboard.move_sizes import best_move_sizes
from ragviz.analysis.dashboard.rows import row_figures
from ragviz.analysis.dashboard.triage import best_moves
from ragviz.analysis.labelsets.diff import diff_label_sets
from ragviz.analysis.labelsets.named import HUMAN, JUDGE, LabelSet, resolve_label_set, store_rows
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.dataset import Dataset, examples_at
from ragviz.data.label_columns import label_columns
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.store.audit_samples import population_fingerprint
from ragviz.store.label_store import LabelStore
from tests.synthetic import make_synthetic

# -- the replaced code, as it was ------------------------------------------------------------------


def _weights_before(start: int, stop: int, n_resamples: int, seed: int = 0) -> np.ndarray:
    """``poisson_weights`` before: every block of the range drawn whole, then sliced."""
    table, size, block_rows = poisson_bootstrap._poisson_table(), poisson_bootstrap.WEIGHT_BLOCK * n_resamples, 256
    first, last = start // block_rows, max(start, stop - 1) // block_rows
    blocks = []
    for block in range(first, last + 1):
        raw = np.random.default_rng([seed, block]).bit_generator.random_raw((size + 3) // 4)
        blocks.append(np.take(table, raw.view(np.uint16)[:size]).reshape(block_rows, n_resamples))
    weights = np.concatenate(blocks)
    return weights[start - first * block_rows : stop - first * block_rows]


def _sums_before(values: np.ndarray, groups: np.ndarray, n_groups: int, n_resamples: int, seed: int = 0):
    """``resample_sums`` before: 4,096-row chunks, every column's weight sums on their own."""
    n, n_columns = values.shape
    sums = np.zeros((n_groups, n_columns, n_resamples))
    weights = np.zeros((n_groups, n_columns, n_resamples))
    for start in range(0, n, 4096):
        stop = min(n, start + 4096)
        w = _weights_before(start, stop, n_resamples, seed).astype(np.float64)
        x = values[start:stop]
        present = ~np.isnan(x)
        both = np.concatenate([np.where(present, x, 0.0), present], axis=1)
        in_chunk = groups[start:stop]
        for g in np.unique(in_chunk):
            member = in_chunk == g
            result = both[member].T @ w[member]
            sums[g] += result[:n_columns]
            weights[g] += result[n_columns:]
    return sums, weights


def _n_context_before(dataset: Dataset) -> list[int]:
    col = dataset.table.column("documents_sentences")
    per_doc = pc.fill_null(pc.list_value_length(pc.list_flatten(col)), 0)
    counts = [0] * len(dataset)
    if len(per_doc):
        grouped = pa.table({"row": pc.list_parent_indices(col), "n": per_doc}).group_by("row").aggregate([("n", "sum")])
        for r, k in zip(grouped.column("row").to_pylist(), grouped.column("n_sum").to_pylist()):
            counts[r] = k
    return counts


def _fingerprint_before(uids) -> str:
    h = hashlib.sha256()
    for uid in sorted(set(uids)):
        h.update(uid.encode())
        h.update(b"\n")
    return h.hexdigest()[:16]


# -- the Poisson bootstrap ------------------------------------------------------------------------------


@pytest.mark.parametrize("n_resamples", [37, 1000])
def test_a_few_rows_weights_drawn_alone_are_those_rows_of_their_blocks(n_resamples):
    whole = _weights_before(0, 1100, n_resamples, seed=3)
    for start, stop in [(0, 1), (1, 2), (3, 4), (255, 256), (256, 257), (250, 260), (1, 255), (5, 5), (100, 900)]:
        got = poisson_bootstrap.poisson_weights(start, stop, n_resamples, seed=3)
        assert got.dtype == np.uint8 and np.array_equal(got, whole[start:stop]), (start, stop)


def _values(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Four columns: two null in the same rows, one with its own nulls, one never null; three
    groups, one of them rare and absent from whole blocks."""
    rng = np.random.default_rng(seed)
    values = rng.random((n, 4))
    values[:, 3] = (values[:, 3] < 0.7).astype(float)
    shared = rng.random(n) < 0.1
    values[shared, 0] = values[shared, 1] = np.nan
    values[rng.random(n) < 0.2, 2] = np.nan
    groups = np.minimum(rng.integers(0, 2, n), 1) + (rng.random(n) < 0.01)
    groups[: 3 * 256] = 0  # whole blocks of one group
    return values, groups


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("n_resamples", [37, 200])
def test_resample_sums_are_those_of_the_chunked_pass(workers, n_resamples):
    values, groups = _values(9 * 256 + 77)
    got = poisson_bootstrap.resample_sums(values, groups, 3, n_resamples, seed=2, workers=workers)
    sums, weights = _sums_before(values, groups, 3, n_resamples, seed=2)
    assert np.array_equal(got.weights, weights)  # whole numbers: exact in any order
    assert np.allclose(got.sums, sums, rtol=1e-13, atol=1e-12)
    for members in ([0], [1], [2], [0, 1, 2]):
        for k in range(4):
            before = poisson_bootstrap.ResampleSums(sums, weights, got.totals, got.counts, 2).interval(members, k)
            assert got.interval(members, k) == pytest.approx(before, rel=1e-12, abs=1e-12)


def test_with_rows_at_any_position_equals_recomputing():
    values, groups = _values(3 * 256 + 5, seed=1)
    state = poisson_bootstrap.resample_sums(values, groups, 3, 37, seed=4)
    rows = [0, 1, 3, 255, 256, 513, len(values) - 1]
    new = values[rows].copy()
    new[:, 0] = 0.5
    new[1] = np.nan
    changed = values.copy()
    changed[rows] = new
    updated = state.with_rows(rows, groups[rows], values[rows], new)
    again = poisson_bootstrap.resample_sums(changed, groups, 3, 37, seed=4)
    assert np.allclose(updated.sums, again.sums, atol=1e-9) and np.allclose(updated.weights, again.weights, atol=1e-9)
    assert np.array_equal(updated.counts, again.counts)


# -- triage move sizes -----------------------------------------------------------------------------------


def _row(i: int, documents: list[list[str]], relevant, utilized, support) -> dict:
    return {
        "id": f"r{i}",
        "question": "q",
        "documents_sentences": [[[key, f"text {key}"] for key in doc] for doc in documents],
        "response_sentences": [[key, f"answer {key}"] for key in ("a", "b")],
        "all_relevant_sentence_keys": relevant,
        "all_utilized_sentence_keys": utilized,
        "sentence_support_information": support,
    }


def _support(*unsupported: str) -> list[dict]:
    return [
        {
            "response_sentence_key": k,
            "fully_supported": k not in unsupported,
            "supporting_sentence_keys": ["0a"],
            "explanation": "",
        }
        for k in ("a", "b")
    ]


def test_move_sizes_of_one_candidate_per_kind_are_those_of_every_sentence():
    """Rows whose context names a key twice, every sentence labelled (no unlabelled kind), a list
    naming keys the context lacks, no context at all, and the usual rows."""
    rows = [
        _row(0, [["0a", "0a", "0b"]], ["0a"], ["0a", "0b"], _support()),
        _row(1, [["0a", "0b"]], ["0a", "0b"], ["0b", "0a"], _support("a")),
        _row(2, [["0a"], ["1a", "1b"]], ["9z", "1a", "1a"], ["8y"], _support("a", "b")),
        _row(3, [], [], [], _support()),
        _row(4, [["0a", "0b", "0c", "0d"]], [], ["0d"], _support("b")),
        _row(5, [["0a", "0b", "0c"]], ["0c", "0c", "0a"], [], _support()),
    ]
    dataset = Dataset.from_rows(rows, "t", "t.jsonl")
    table = dataset.table
    sizes = best_move_sizes(table, label_columns(table), np.asarray(dataset.n_context_sentences))
    for i in range(len(dataset)):
        ex = dataset.example(i)
        moves = best_moves(ex, ex.labels)
        want = [abs(moves[m][1]) if m in moves else 0.0 for m in TRACE_METRICS]
        assert [sizes[m][i] for m in TRACE_METRICS] == want, i


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Dataset:
    out = tmp_path_factory.mktemp("syn") / "syn"
    paths = make_synthetic().write(300, str(out), seed=7, batch=100, jsonl=False)
    return load(paths[0]).dataset


def test_row_figures_in_threads_are_those_of_one_thread(synthetic, monkeypatch):
    monkeypatch.setattr(dashboard_rows, "BATCH_ROWS", 64)  # several batches
    done = []
    one = row_figures(synthetic, workers=1)
    three = row_figures(synthetic, lambda k, total: done.append(k), workers=3)
    for m in TRACE_METRICS:
        assert np.array_equal(one.scores[m], three.scores[m], equal_nan=True)
        assert np.array_equal(one.moves[m], three.moves[m], equal_nan=True)
    assert done == sorted(done) and done[-1] == len(synthetic)


# -- dataset columns, fingerprint, statistics ---------------------------------------------------------


def test_context_sentence_counts_from_offsets_are_the_group_sums(synthetic):
    rows = [
        {"id": "a", "documents_sentences": [[["0a", "x"], ["0b", "y"]], [["1a", "z"]]]},
        {"id": "b", "documents_sentences": None},
        {"id": "c", "documents_sentences": []},
        {"id": "d", "documents_sentences": [None, [["1a", "q"]]]},
        {"id": "e", "documents_sentences": [[]]},
    ]
    small = Dataset.from_rows(rows, "s", "s.jsonl")
    chunked = Dataset(pa.concat_tables([small.table, small.table.slice(1, 3), small.table.slice(2)]))
    for dataset in (small, chunked, Dataset(chunked.table.slice(2, 6)), synthetic):
        assert dataset.n_context_sentences == _n_context_before(dataset)


def test_subset_codes_are_the_sorted_names_and_each_rows_place(synthetic):
    rows = [{"id": str(k), "dataset_name": name} for k, name in enumerate(["b", "", "a", "b", "é", "a"])]
    small = Dataset.from_rows(rows, "sub", "s.jsonl")
    chunked = Dataset(pa.concat_tables([small.table, small.table.slice(2)]))
    for dataset in (small, chunked, synthetic, Dataset(synthetic.table.slice(0, 0))):
        names = tuple(sorted(set(dataset.datasets)))
        found, codes = dataset.dataset_codes
        assert found == names
        assert codes.tolist() == [names.index(d) for d in dataset.datasets]
        records = pd.DataFrame({"dataset": dataset.datasets, **{m: np.ones(len(dataset)) for m in TRACE_METRICS}})
        state = subset_mean_state(records)
        assert state.names == names and state.groups.tolist() == codes.tolist()


def test_the_uid_index_names_a_repeated_uids_first_row():
    rows = [{"id": k, "dataset_name": "d", "generation_model_name": "m"} for k in ("x", "y", "x", "z", "y")]
    dataset = Dataset.from_rows(rows, "s", "s.jsonl")
    assert [dataset.index_of(uid) for uid in ("d/x/m", "d/y/m", "d/z/m", "d/w/m")] == [0, 1, 3, None]


def test_the_population_fingerprint_is_unchanged():
    for uids in ([], ["a"], ["b", "a", "b"], ["é/ü/m", "a/b/c", "a/b"], [f"d/{k}/m" for k in range(2000)]):
        assert population_fingerprint(uids) == _fingerprint_before(uids)


def test_auroc_and_rmse_of_arrays_are_those_of_lists():
    rng = np.random.default_rng(5)
    truth = rng.random(5000) < 0.3
    score = np.round(rng.random(5000), 2)  # many ties
    assert stats.auroc(truth, score) == stats.auroc(truth.tolist(), score.tolist())
    a, b = rng.random(5000), rng.random(5000)
    assert stats.rmse(a, b) == pytest.approx(stats.rmse(a.tolist(), b.tolist()), rel=1e-13)
    assert stats.rmse(np.zeros(0), np.zeros(0)) is None


# -- the decided examples, built once -----------------------------------------------------------------


@pytest.fixture()
def decided(synthetic, tmp_path):
    """Decisions of two annotators on a few rows (more than a batch of 16 examples) and a stored judge set."""
    db = tmp_path / "labels.db"
    with LabelStore(db) as store:
        for i in range(0, len(synthetic), 9):
            ex = synthetic.example(i)
            if ex.labels is None:
                continue
            store.record(ex.uid, "ann", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
            if i % 2 == 0:
                store.record(ex.uid, "bob", [Change("utilized_keys", list(ex.labels.utilized_keys), [])])
        ex = next(synthetic.example(i) for i in range(1, len(synthetic), 2) if synthetic.example(i).labels)
        store.judge.save(ex.uid, ex.labels.replace(relevant_keys=()))
    return db


@pytest.mark.parametrize("against", [HUMAN, LabelSelection.of("ann"), LabelSelection.of("bob")])
def test_the_dashboard_with_its_examples_built_once_is_the_same(synthetic, decided, against):
    with LabelStore(decided) as store:
        rows = store_rows(synthetic, store)
        assert len(rows) > 16 and rows == sorted(rows)
        examples = examples_at(synthetic, rows)
        base = row_figures(synthetic)
        given = dashboard.dashboard_data(synthetic, against, store, base=base, examples=examples)
        alone = dashboard.dashboard_data(synthetic, against, store, base=base)
        means = dashboard.subset_means(pd.DataFrame({"dataset": synthetic.datasets, **base.scores}))
    assert given.means == alone.means and len(given.means) == len(means)
    assert given.leverage == alone.leverage and given.disagreements == alone.disagreements
    assert given.baselines == alone.baselines and given.scatter == alone.scatter
    assert given.judge_agreement == alone.judge_agreement and given.n_reviewed == alone.n_reviewed > 0
    assert given.records.equals(alone.records)


def test_label_sets_and_diffs_are_the_same_with_examples_given(synthetic, decided):
    with LabelStore(decided) as store:
        examples = examples_at(synthetic, store_rows(synthetic, store))
        for name in (HUMAN, LabelSelection.of("ann"), JUDGE):
            a = resolve_label_set(synthetic, name, store, scope="all")
            b = resolve_label_set(synthetic, name, store, scope="all", examples=examples)
            assert sorted(a.labels) == sorted(b.labels)
            assert all(a.labels[i] == b.labels[i] for i in examples if i in a.labels)
        judge, human = resolve_label_set(synthetic, JUDGE, store), resolve_label_set(synthetic, HUMAN, store)
        plain = diff_label_sets(synthetic, judge, human)
        assert plain == diff_label_sets(synthetic, judge, human, examples=examples)
        assert plain == diff_label_sets(synthetic, judge, human, examples={i: examples[i] for i in list(examples)[::2]})
        shown = LabelSet(HUMAN.name, {i: human.labels[i] for i in sorted(human.labels)})
        assert diff_label_sets(synthetic, judge, shown) == diff_label_sets(synthetic, judge, shown, examples=examples)
