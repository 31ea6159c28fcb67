"""Label sets without an Example per row (``ragviz.analysis.labelsets.rows``) give what building every
example gave: the same rows, the same labels, the same diffs, on the RAGBench shards and on a
reviewed export, with decisions of several annotators and judge label sets in the store.

``_reference_label_set`` is the per-example resolution ragviz used before (every row's Example
built, :func:`ragviz.analysis.labelsets.named.judge_labels` asked row by row); it stays here as the oracle."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.estimates.pairing import PairedExample, example_metrics, pair_store
from ragviz.analysis.labelsets.diff import diff_label_sets
from ragviz.analysis.labelsets.named import (
    HUMAN,
    JUDGE,
    LabelSet,
    _is_human,
    judge_labels,
    resolve_label_set,
)
from ragviz.analysis.labelsets.rows import DECIDED, ROW, ROW_JUDGE, STORE_JUDGE, RowLabels
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.dataset import Dataset, iter_examples
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.export.files import write_jsonl
from ragviz.export.rows import export_rows
from ragviz.store.label_store import LabelStore
from tests.ragbench_data import SUBSETS, require_ragbench, shard
from tests.sample import SAMPLE_JSONL

NAMES = (JUDGE, HUMAN, LabelSelection.of("ann"), LabelSelection.of("bob"), LabelSelection.of("nobody"))


def _reference_label_set(dataset, name, store, scope="reviewed", built=None):
    """The label set as every row's Example gave it (the code before RowLabels; ``human`` since issue 35: per
    example and label field every annotator's latest decision, as the team's export, where it was the whole labels
    of whoever decided last)."""
    built = built if built is not None else dict(iter_examples(dataset))
    judged = store.judge.judged_uids() if store is not None else set()
    out = {}
    if name == HUMAN and "label_source" in dataset.table.column_names:
        for i, v in enumerate(dataset.table.column("label_source").to_pylist()):
            if v == "human" and _is_human(built[i].labels):
                out[i] = built[i].labels
    if name != JUDGE and store is not None:
        who = "*" if name == HUMAN else name.annotator
        for uid, st in store.statuses(who).items():
            row = dataset.index_of(uid)
            if row is not None and st.reviewed:
                labels = (
                    store.team_labels(built[row]).labels if name == HUMAN else store.current_labels(built[row], who)
                )
                if labels is not None:
                    out[row] = labels
    if name == JUDGE or scope == "all":
        for i in range(len(dataset)):
            if i not in out:
                ex = built[i]
                labels = judge_labels(ex, store if ex.uid in judged else None)
                if labels is not None:
                    out[i] = labels
    return LabelSet(name.label(), out)


def _decide(store, dataset):
    """Two annotators decide on some rows (edits, plain reviews, overlapping rows); the judge's
    labels of a few other rows are in the store."""
    for i in range(0, min(len(dataset), 90), 3):
        ex = dataset.example(i)
        if ex.labels is not None:
            store.record(ex.uid, "ann", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
    for i in range(1, min(len(dataset), 120), 4):
        store.record(dataset.example(i).uid, "bob", [Change("review", None, "reviewed")])
    for i in range(2, min(len(dataset), 60), 7):
        ex = dataset.example(i)
        if ex.labels is not None:
            keys = list(ex.context_keys()[:2])
            store.judge.save(ex.uid, ex.labels.replace(relevant_keys=tuple(keys), unsupported_keys=None))


def _check_same(dataset, store):
    built = dict(iter_examples(dataset))
    new, old = {}, {}
    for name in NAMES:
        for scope in ("reviewed", "all"):
            new[name, scope] = resolve_label_set(dataset, name, store, scope=scope)
            old[name, scope] = _reference_label_set(dataset, name, store, scope, built)
            got, want = new[name, scope].labels, old[name, scope].labels
            assert isinstance(got, RowLabels)
            assert list(got) == sorted(want), (name, scope)
            assert dict(got.items()) == want, (name, scope)
    one_by_one = resolve_label_set(dataset, HUMAN, store, scope="all")
    assert all(one_by_one.labels[i] == old[HUMAN, "all"].labels[i] for i in list(old[HUMAN, "all"].labels)[:40])
    for a in NAMES:
        for b in NAMES:
            new_a, new_b, old_a, old_b = new[a, "reviewed"], new[b, "reviewed"], old[a, "reviewed"], old[b, "reviewed"]
            assert new_a.shared_rows(new_b) == old_a.shared_rows(old_b)
            assert diff_label_sets(dataset, new_a, new_b) == diff_label_sets(dataset, old_a, old_b), (a, b)


@pytest.fixture(scope="module")
def ragbench():
    require_ragbench()
    return Dataset.concat(Dataset.from_table(pq.read_table(shard(s)), s, str(shard(s))) for s in SUBSETS)


def test_label_sets_on_the_ragbench_shards_equal_the_per_example_ones(ragbench, tmp_path):
    with LabelStore(tmp_path / "l.db") as store:
        _check_same(ragbench, None)
        _decide(store, ragbench)
        _check_same(ragbench, store)
        sources = resolve_label_set(ragbench, LabelSelection.of("ann"), store, scope="all").labels.source
        assert {ROW, STORE_JUDGE, DECIDED} <= set(sources.tolist())


def test_label_sets_on_a_reviewed_export_equal_the_per_example_ones(tmp_path):
    """Rows a person labelled (label_source human, the judge's under llm_), rows nobody touched and
    rows without labels, with a new store deciding on some of them."""
    dataset = load([SAMPLE_JSONL]).dataset
    with LabelStore(tmp_path / "first.db") as first:
        _decide(first, dataset)
        rows = export_rows(dataset, first, LabelSelection.of("ann"))
    rows[-1] = {**rows[-1], **{k: None for k in rows[-1] if k.startswith(("all_", "sentence_", "unsupp", "overall"))}}
    rows[-1] = {**rows[-1], **{k: None for k in rows[-1] if k.startswith("llm_")}, "label_source": None}
    write_jsonl(rows, tmp_path / "reviewed.jsonl")
    reviewed = load([tmp_path / "reviewed.jsonl"]).dataset
    assert "human" in reviewed.table.column("label_source").to_pylist()
    with LabelStore(tmp_path / "second.db") as store:
        _check_same(reviewed, None)
        for i in range(0, len(reviewed), 5):
            ex = reviewed.example(i)
            if ex.labels is not None:
                store.record(ex.uid, "bob", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
        store.judge.save(reviewed.example(1).uid, reviewed.example(1).labels)
        _check_same(reviewed, store)
        assert ROW_JUDGE in resolve_label_set(reviewed, JUDGE, store).labels.source.tolist()


def test_a_label_set_builds_only_the_rows_asked_for(ragbench, tmp_path):
    with LabelStore(tmp_path / "l.db") as store:
        _decide(store, ragbench)
        judge, human = resolve_label_set(ragbench, JUDGE, store), resolve_label_set(ragbench, HUMAN, store)
        assert len(judge.labels) == len(ragbench)  # every shard row is judge-labelled
        diff_label_sets(ragbench, judge, human)
        assert len(judge.labels._built) <= len(human.labels)  # the rows nobody decided on are never built
        assert judge.differing_rows(resolve_label_set(ragbench, JUDGE, store)) == []


def _reference_pairing(dataset, store, members, against, families):
    """:func:`ragviz.analysis.estimates.pairing.pair_store` as it was: every row's Example built."""
    built = dict(iter_examples(dataset))
    judge = _reference_label_set(dataset, JUDGE, store, built=built)
    people = _reference_label_set(dataset, against, store, "reviewed", built)
    out = []
    for i in range(len(dataset)):
        ex = built[i]
        audited = ex.uid in members and i in people.labels
        human = example_metrics(ex, people.labels[i], families) if audited else None
        out.append(
            PairedExample(
                ex.uid,
                ex.dataset,
                ex.generation_model,
                example_metrics(ex, judge.labels.get(i), families),
                human,
                str(ex.source),
            )
        )
    return out


@pytest.mark.parametrize("families", [("trace",), ("trace", "tonic")])
def test_audit_pairing_equals_the_per_example_one(ragbench, tmp_path, families):
    members = [ragbench.uids[i] for i in range(100) if i % 10]  # reviewed rows 100-119 are outside
    with LabelStore(tmp_path / "l.db") as store:
        _decide(store, ragbench)
        for against in (HUMAN, LabelSelection.of("ann"), LabelSelection.of("bob")):
            pairing = pair_store(ragbench, store, members, against, families)
            assert pairing.examples == _reference_pairing(ragbench, store, set(members), against, families)
            assert pairing.n_labeled > 0
            assert any("outside the audit sample" in w for w in pairing.warnings)
            assert any("not reviewed yet" in w for w in pairing.warnings)


def test_audit_pairing_with_the_rows_scored_once_equals_the_per_example_one(ragbench, tmp_path):
    """The report scores every row's TRACe once (row_figures) and hands it to the pairing: the same pairing."""
    from ragviz.analysis.dashboard.rows import row_figures

    members = [ragbench.uids[i] for i in range(100) if i % 10]
    scores = row_figures(ragbench).scores
    with LabelStore(tmp_path / "l.db") as store:
        _decide(store, ragbench)
        for against in (HUMAN, LabelSelection.of("ann")):
            pairing = pair_store(ragbench, store, members, against, ("trace",), scores=scores)
            assert pairing.examples == _reference_pairing(ragbench, store, set(members), against, ("trace",))
            assert pairing.n_labeled > 0


def test_rows_at_returns_the_rows_asked_for_in_that_order_across_chunks(ragbench):
    assert ragbench.table.column("id").num_chunks > 1  # one chunk per shard
    rows = [2895, 0, 5, 1400, 5, 2000, 1]
    assert ragbench.rows_at(rows) == [ragbench.row(i) for i in rows]
    assert ragbench.rows_at(rows, ["id", "nothing"]) == [{"id": ragbench.row(i)["id"]} for i in rows]
    assert ragbench.rows_at([]) == []
