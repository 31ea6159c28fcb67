"""The round on columns (:func:`ragviz.analysis.team.table.round_table`) gives the figures of comparing every
example one by one (:func:`ragviz.analysis.team.gold.team_round`): on the sample data, on RAGBench shards, on
synthetic rows, and on rows the columns must leave to the one-by-one path (a reviewed export's ``llm_``
copies, ``label_source`` human, unlabeled rows, a stored judge label set, a settlement, an undone edit)."""

from __future__ import annotations

import pytest

from ragviz.analysis.agreement import (
    SENTENCE_LABELS,
    AnnotatorAgreement,
    annotator_label_sets,
    multi_rater_kappas,
    pairwise_kappas,
)
from ragviz.analysis.labelsets.named import resolve_label_set
from ragviz.analysis.labelsets.selection import GOLD
from ragviz.analysis.team import table as table_module
from ragviz.analysis.team.adjudicate import adjudication_queue, settle_example, shown_now
from ragviz.analysis.team.alpha import round_alpha
from ragviz.analysis.team.columns import key_examples, loaded_counts
from ragviz.analysis.team.dashboard import table_alpha, team_figures
from ragviz.analysis.team.gold import _aligned, team_round
from ragviz.analysis.team.gold_set import round_gold
from ragviz.analysis.team.kappas import annotator_agreement, table_kappas
from ragviz.analysis.team.progress import table_progress, team_progress
from ragviz.analysis.team.table import RoundTable, round_table
from ragviz.data.dataset import Dataset, examples_at
from ragviz.data.labels import RELEVANT_FIELD, REVIEW_FIELD, REVIEWED, field_value, support_field
from ragviz.data.load import load
from ragviz.data.ragbench import LABEL_FIELDS, LLM_PREFIX, RELEVANT
from ragviz.export.rows import exported_examples
from ragviz.store.events import base_labels, without_contradicting_explanations
from ragviz.store.label_store import LabelStore
from tests.ragbench_data import require_ragbench, shard
from tests.sample import SAMPLE_JSONL
from tests.synthetic import make_synthetic

TEAM = ["ana", "bo", "cy"]


@pytest.fixture(autouse=True)
def _columns_from_any_size(monkeypatch):
    """What reads the round as the product does (the gold label set, ``annotator_agreement``) counts these small
    rounds on columns too."""
    monkeypatch.setattr(table_module, "COLUMNS_FROM", 0)


ACCEPT = [(REVIEW_FIELD, None, REVIEWED)]


def _decide(store: LabelStore, ds: Dataset, n: int, overlap: int = 2) -> list[str]:
    """Assign the first *n* examples to TEAM with *overlap*; each assignee accepts, except: on every 7th example
    the first assignee drops a relevant key, on every 11th the second flips the first answer sentence's
    verdict, on every 13th the first assignee's edit is undone, every 17th is left undecided by its last."""
    uids = [ds.uids[i] for i in range(n)]
    store.team.assignments.assign(uids, overlap, TEAM, "lead")
    holders = store.team.assignments.assigned()
    for k, uid in enumerate(uids):
        ex = ds.example(ds.index_of(uid))
        who = holders[uid]
        for j, name in enumerate(who):
            if k % 17 == 0 and j == len(who) - 1:
                continue
            keys = list(ex.labels.relevant_keys) if ex.labels is not None else []
            if k % 7 == 0 and j == 0 and keys:
                store.record(uid, name, [(RELEVANT_FIELD, keys, keys[1:])], example=ex)
            elif k % 11 == 0 and j == 1 and ex.response_keys() and ex.labels is not None:
                key = ex.response_keys()[0]
                s = ex.labels.support_for(key)
                was = field_value(ex.labels, support_field(key))
                now = {"supported": not (s.supported if s else True), "supporting_keys": [], "explanation": "x"}
                store.record(uid, name, [(support_field(key), was, now)], example=ex)
            elif k % 13 == 0 and j == 0 and keys:
                store.record(uid, name, [(RELEVANT_FIELD, keys, [])], example=ex)
                assert store.undo(uid, name)
                store.record(uid, name, ACCEPT, example=ex)
            else:
                store.record(uid, name, ACCEPT, example=ex)
    return uids


def _kappas_one_by_one(ds: Dataset, store: LabelStore, in_round: bool) -> AnnotatorAgreement:
    """Every decided example built whole and each annotator's labels folded (the per-example reference)."""
    left_out: dict[str, int] = {}
    assigned = store.team.assignments.assigned() if in_round else None
    raters = annotator_label_sets(ds, None, store, assigned, left_out)
    rows = sorted({ds.index_of(uid) for decided in raters.values() for uid in decided})
    built = examples_at(ds, rows)
    shared = [built[i] for i in rows]
    pairs = pairwise_kappas(shared, raters, SENTENCE_LABELS) if len(raters) >= 2 else []
    overall = multi_rater_kappas(shared, raters, SENTENCE_LABELS) if len(raters) >= 2 else []
    counted = {a: len(d) for a, d in raters.items()}
    return AnnotatorAgreement(tuple(sorted(raters)), counted, pairs, overall, dict(sorted(left_out.items())))


def _assert_same(ds: Dataset, store: LabelStore) -> RoundTable:
    table = round_table(ds, store, columns_from=0)
    in_round = bool(store.team.assignments.assigned())
    kappas = _kappas_one_by_one(ds, store, in_round)
    assert kappas.has_pairs
    assert table_kappas(table, in_round=in_round) == kappas
    assert annotator_agreement(ds, None, store, assigned=store.team.assignments.assigned()) == kappas
    assert annotator_agreement(ds, None, store) == _kappas_one_by_one(ds, store, False)  # every decision counts
    rounds = team_round(ds, store)
    one_by_one = RoundTable.from_rounds(rounds)
    versions = store.team.guidelines.decision_versions()
    seconds = {"ana": 3.0, "bo": 4.5}
    assert table.uids == tuple(rounds)
    assert team_figures(table, seconds, versions, n_boot=200) == team_figures(rounds, seconds, versions, n_boot=200)
    assert table.queue() == adjudication_queue(rounds)
    assert [table.state(uid) for uid in rounds] == [one_by_one.state(uid) for uid in rounds]
    assert table_alpha(table, n_boot=100) == round_alpha(rounds.values(), n_boot=100)
    assert table_progress(table) == team_progress(store, ds.uids)
    want = {uid: r.gold for uid, r in rounds.items() if r.gold is not None}
    gold = round_gold(ds, table)
    assert list(gold) == list(want) and dict(gold.items()) == want  # labels, who, when, agreed / adjudicated
    label_set = resolve_label_set(ds, GOLD, store)
    assert dict(label_set.labels.items()) == {ds.index_of(uid): g.labels for uid, g in want.items()}
    for item in exported_examples(ds, store, GOLD):  # export --labels gold
        g = want.get(item.example.uid)
        if g is None:
            assert item.label_source not in ("agreed", "adjudicated")
        else:
            assert (item.label_source, item.reviewer, item.reviewed_at) == (g.source, g.by, g.at)
            base = base_labels(item.example, store.judge.labels(item.example.uid))
            assert item.current == without_contradicting_explanations(g.labels, base)
    return table


def _loaded_counts_match(ds: Dataset) -> int:
    """Every row the columns read exactly counts what the row-by-row path lists; returns how many rows."""
    counts = loaded_counts(ds)
    for i, ex in examples_at(ds, range(len(ds))).items():
        if not counts.exact[i]:
            continue
        values = _aligned(ex, ex.labels)
        n_ctx, n_resp = len(ex.context_keys()), len(ex.response_keys())
        assert (counts.n_context[i], counts.n_response[i]) == (n_ctx, n_resp)
        assert counts.n_relevant[i] == sum(values[:n_ctx])
        assert counts.n_utilized[i] == sum(values[n_ctx : 2 * n_ctx])
        assert counts.n_supported[i] == sum(values[2 * n_ctx : 2 * n_ctx + n_resp])
        assert counts.judged[i] == (ex.judge_labels is ex.labels)
    return int(counts.exact.sum())


def _key_examples_match(ds: Dataset) -> None:
    rows = list(range(len(ds)))
    whole, keyed = examples_at(ds, rows), key_examples(ds, rows)
    for i in rows:
        a, b = whole[i], keyed[i]
        assert (a.uid, a.context_keys(), a.response_keys()) == (b.uid, b.context_keys(), b.response_keys())
        assert (a.labels, a.judge_labels, a.response_sentences) == (b.labels, b.judge_labels, b.response_sentences)


def test_sample_round_on_columns_equals_one_by_one(tmp_path):
    ds = load([str(SAMPLE_JSONL)]).dataset
    assert _loaded_counts_match(ds) > 0
    _key_examples_match(ds)
    with LabelStore(tmp_path / "labels.db") as store:
        uids = _decide(store, ds, len(ds), overlap=3)
        table = _assert_same(ds, store)
        assert table.on_columns.any() and not table.on_columns.all()
        assert table.queue(), "some examples wait for an adjudicator"
        first = table.queue()[0]
        ex = ds.example(ds.index_of(first))
        r, seen = shown_now(ex, store)
        settle_example(ex, store, "lead", {u: r.values[next(iter(r.values))][k] for k, u in enumerate(r.units)}, seen)
        store.judge.save(uids[1], ds.example(1).labels)  # a stored judge label set: compared one by one
        table = _assert_same(ds, store)
        assert first not in table.queue() and table.state(first) == "gold (adjudicated)"
        assert not table.on_columns[table.uids.index(uids[1])]


@pytest.mark.parametrize("subset", ["covidqa", "hotpotqa"])
def test_ragbench_round_on_columns_equals_one_by_one(tmp_path, subset):
    require_ragbench()
    ds = load([str(shard(subset))]).dataset
    assert _loaded_counts_match(ds) > len(ds) // 2
    _key_examples_match(ds)
    with LabelStore(tmp_path / "labels.db") as store:
        _decide(store, ds, 120)
        table = _assert_same(ds, store)
        assert table.on_columns.sum() > 60


def test_synthetic_three_annotator_round_on_columns_equals_one_by_one(tmp_path):
    parquet = make_synthetic().write(300, str(tmp_path / "syn"), seed=3, jsonl=False)[0]
    ds = load([str(parquet)]).dataset
    assert _loaded_counts_match(ds) == len(ds)
    with LabelStore(tmp_path / "labels.db") as store:
        _decide(store, ds, 280)
        for uid in (ds.uids[0], ds.uids[290]):  # outside the round's assignments: left out of its kappas
            store.record(uid, "dee", ACCEPT, example=ds.example(ds.index_of(uid)))
        table = _assert_same(ds, store)
        assert table.on_columns.sum() > 200
        assert table_kappas(table, in_round=True).left_out == {"dee": 2}


def test_rows_the_columns_cannot_read_exactly_are_compared_one_by_one(tmp_path):
    """A reviewed export's rows (``llm_`` copies), a person's labels without a copy, unlabeled rows."""
    rows = [
        {k: v for k, v in row.items() if not k.startswith("_")}
        for row in load([str(SAMPLE_JSONL)]).dataset.table.to_pylist()
    ]
    for k, row in enumerate(rows):
        if k % 4 == 0:  # a reviewed export: the judge's copy, the person's labels with a key less
            for name in [c for c in list(row) if c in LABEL_FIELDS]:
                row[LLM_PREFIX + name] = row[name]
            row[RELEVANT] = list(row[RELEVANT] or [])[1:]
            row["label_source"] = "human"
        elif k % 4 == 1:
            row["label_source"] = "human"
        elif k % 8 == 3 and row.get("documents_sentences"):  # a sentence key twice: one decision, two units
            row["documents_sentences"][0] = [*row["documents_sentences"][0], row["documents_sentences"][0][0]]
        elif k % 4 == 2:
            for name in LABEL_FIELDS:
                row[name] = None
    ds = Dataset.from_rows(rows, "sample", "rows.jsonl")
    counts = loaded_counts(ds)
    assert not counts.exact[0::4].any() and not counts.exact[2::4].any() and not counts.exact[3::8].any()
    assert not counts.judged[1::4].any()
    _loaded_counts_match(ds)
    with LabelStore(tmp_path / "labels.db") as store:
        _decide(store, ds, len(ds))
        _assert_same(ds, store)
