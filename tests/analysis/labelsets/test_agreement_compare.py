"""Label-set resolution (real SQLite store), per-example diffs and triage rankings."""

from __future__ import annotations

import pytest

from ragviz.analysis.dashboard.triage import disagreements, leverage, single_changes
from ragviz.analysis.labelsets.diff import diff_example, diff_label_sets
from ragviz.analysis.labelsets.named import HUMAN, JUDGE, label_sets, resolve_label_set
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.labels import Change, field_value, support_field
from ragviz.data.load import load
from ragviz.metrics.trace import example_trace
from ragviz.store.label_store import LabelStore
from tests.analysis.test_agreement import labels, make_example
from tests.sample import SAMPLE_JSONL


def test_diff_example_lists_keys_and_flips_with_metric_change():
    ex = make_example()
    a = labels(["0a", "0b."], ["0a"])
    b = labels(["0b", "1a"], ["0a", "1a"], unsupported=("b",))
    d = diff_example(0, ex, a, b)
    assert d.relevant_added == ("1a",) and d.relevant_removed == ("0a",)  # "0b." and "0b" are the same key
    assert d.utilized_added == ("1a",) and d.utilized_removed == ()
    assert [(f.key, f.before, f.after) for f in d.verdicts_flipped] == [("b", "supported", "unsupported")]
    assert d.n_changes == 4
    assert d.deltas["utilization"] == pytest.approx(1 / 5)
    assert d.deltas["adherence"] == -1.0
    assert d.deltas["relevance"] == 0.0
    row = d.as_row()
    assert row["verdicts flipped"] == "b: supported→unsupported" and row["relevant +"] == "1a"


def test_single_changes_cover_every_kind_and_match_trace():
    ex = make_example()
    lab = labels(["0a"], ["0a"], unsupported=("b",))
    changes = {c.description: c for c in single_changes(ex, lab)}
    assert changes["unmark 0a relevant"].deltas["relevance"] == pytest.approx(-1 / 5)
    assert changes["mark 0b relevant"].deltas["completeness"] == pytest.approx(-0.5)
    assert changes["mark response sentence b supported"].deltas["adherence"] == 1.0
    assert changes["mark response sentence a unsupported"].deltas["adherence"] == 0.0  # b already unsupported
    # one representative per kind of context sentence: 0b, 0c, 1a, 1b are alike
    assert sum(1 for c in changes if c.endswith("relevant")) == 2


def test_leverage_ranks_by_dataset_level_effect():
    small = make_example("small", n_docs=(2,))
    big = make_example("big", n_docs=(5, 5))
    items = [(0, big, labels(["0a"], ["0a"])), (1, small, labels(["0a"], ["0a"])), (2, small, None)]
    top = leverage(items, "relevance", top=5)
    assert [x.index for x in top] == [1, 0]  # 1/2 beats 1/10
    assert abs(top[0].example_delta) == pytest.approx(0.5)
    assert top[0].dataset_delta == pytest.approx(top[0].example_delta / 2)  # 2 labeled examples
    with pytest.raises(ValueError):
        leverage(items, "bogus")


def test_label_sets_from_a_real_store(tmp_path):
    ds = load([SAMPLE_JSONL]).dataset
    ex0, ex1 = ds.example(0), ds.example(1)
    with LabelStore(tmp_path / "l.db") as store:
        store.record(ex0.uid, "ann", [Change("relevant_keys", list(ex0.labels.relevant_keys), [])])
        store.record(ex1.uid, "ann", [Change("review", None, "reviewed")])
        cur = store.current_labels(ex1, "bob")
        key = ex1.response_keys()[0]
        old = field_value(cur, support_field(key))
        store.record(
            ex1.uid, "bob", [Change(support_field(key), old, {**old, "supported": not _supported(ex1, cur, key)})]
        )
        assert label_sets(store) == [JUDGE, HUMAN, LabelSelection.of("ann"), LabelSelection.of("bob")]

        judge = resolve_label_set(ds, JUDGE, store)
        assert len(judge) == sum(1 for e in ds if e.labels is not None)
        ann = resolve_label_set(ds, LabelSelection.of("ann"), store)
        assert set(ann.labels) == {0, 1}  # edited and accepted
        assert ann.labels[0].relevant_keys == ()
        human = resolve_label_set(ds, HUMAN, store)
        assert set(human.labels) == {0, 1}
        assert human.labels[1] == store.current_labels(ex1, "bob")  # bob decided on ex1 last
        from ragviz.analysis.labelsets.named import human_labels

        for i, ex in ((0, ex0), (1, ex1)):  # one example at a time: the same rule as the whole set
            assert human_labels(ex, store)[0] == human.labels[i]
        assert human_labels(ex1, store)[1] == "bob" and human_labels(ex1, store, LabelSelection.of("ann"))[1] == "ann"
        everyone = resolve_label_set(ds, HUMAN, store, scope="all")
        assert len(everyone) == len(judge) and everyone.labels[5] == judge.labels[5]

        diffs = diff_label_sets(ds, judge, human)
        assert [d.index for d in diffs] == [0, 1]
        assert diffs[0].relevant_removed and not diffs[0].relevant_added
        assert diffs[0].after["relevance"] == 0.0
        assert diffs[0].before["relevance"] == example_trace(ex0).relevance
        assert len(diffs[1].verdicts_flipped) == 1
        ranked = disagreements(ds, judge, human)
        assert ranked[0].n_changes >= ranked[-1].n_changes


def _supported(example, labels_, key):
    from ragviz.data.ragbench import unsupported_keys

    return key not in unsupported_keys(labels_)


def test_diff_totals_and_dashboard_agreement_rows():
    from ragviz.analysis.agreement import BINARY_LABELS, agreement
    from ragviz.analysis.dashboard.figures import agreement_rows
    from ragviz.analysis.labelsets.diff import diff_totals

    ex = make_example()
    a = labels(["0a", "0b."], ["0a"])
    b = labels(["0b", "1a"], ["0a", "1a"], unsupported=("b",))
    d = diff_example(0, ex, a, b)
    totals = diff_totals([d, d])
    assert (totals.relevant_added, totals.relevant_removed, totals.utilized_added, totals.utilized_removed) == (
        2,
        2,
        2,
        0,
    )
    assert totals.verdicts_flipped == 2 and diff_totals([]).verdicts_flipped == 0

    agreed = agreement([(ex, b, a)])
    rows = agreement_rows(agreed)
    assert [r["label"] for r in rows] == list(BINARY_LABELS)
    relevant = rows[0]
    c = agreed.labels["relevant"].confusion
    assert list(relevant) == [
        "label",
        "decisions",
        "Cohen's κ",
        "κ 95%",
        "precision",
        "precision 95%",
        "recall",
        "recall 95%",
        "F1",
        "F1 95%",
        "accuracy",
        "accuracy 95%",
        "TP",
        "FP",
        "FN",
        "TN",
    ]
    assert (relevant["decisions"], relevant["TP"], relevant["FP"], relevant["FN"], relevant["TN"]) == (
        c.n,
        c.tp,
        c.fp,
        c.fn,
        c.tn,
    )
    assert relevant["precision"] == c.precision and relevant["Cohen's κ"] == agreed.labels["relevant"].kappa
    # one reviewed example: no interval, the words instead
    assert relevant["κ 95%"] == "too few reviewed to say (1 of 10)"
