"""The Dashboard's "What to review next" ranks (issue 29, item 8): examples someone already reviewed
are left out, and equal moves of the mean (every adherence flip moves it by 1/n, so before the list
was row order with the same -0.0003 on every line) are ordered by the example's own size of effect."""

from __future__ import annotations

from ragviz.analysis.dashboard.figures import dashboard_data
from ragviz.analysis.dashboard.triage import best_moves, leverage_by_metric
from ragviz.analysis.labelsets.selection import HUMAN
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.analysis.test_agreement import labels, make_example
from tests.sample import SAMPLE_DATA


def _effect_of(example, labels) -> float:
    return sum(abs(delta) for _, delta in best_moves(example, labels).values())


def test_equal_moves_go_by_the_examples_own_effect_and_reviewed_ones_are_left_out():
    big = make_example("big", n_docs=(5, 5))
    small = make_example("small", n_docs=(2,))
    unsupported_b = labels(["0a"], ["0a"], unsupported=("b",))  # flipping b moves adherence 0 -> 1
    items = [(0, big, unsupported_b), (1, small, unsupported_b), (2, small, unsupported_b)]
    top = leverage_by_metric(items, ("adherence",), top=5, reviewed={2})["adherence"]
    # the same move of the mean for both; the small example's best changes move its other metrics more
    assert [x.dataset_delta for x in top] == [1 / 3, 1 / 3]  # n counts the reviewed example too
    assert _effect_of(small, unsupported_b) > _effect_of(big, unsupported_b)
    assert [x.index for x in top] == [1, 0]  # was [0, 1, 2]: row order, the reviewed one first


def _effect(example) -> float:
    """How far the example's best single change moves each TRACe metric, summed."""
    return sum(abs(delta) for _, delta in best_moves(example, example.labels).values())


def test_the_dashboard_lists_no_reviewed_example_and_orders_equal_moves(tmp_path):
    ds = load([SAMPLE_DATA]).dataset
    before = dashboard_data(ds, HUMAN, None).leverage["adherence"]
    first = before[0]
    with LabelStore(tmp_path / "labels.db") as store:
        store.record(first.uid, "ann", [Change(REVIEW_FIELD, None, REVIEWED)])
        after = dashboard_data(ds, HUMAN, store).leverage["adherence"]
    assert first.uid not in [x.uid for x in after]
    effects = [_effect(ds.example(x.index)) for x in after]
    keys = [(-abs(x.dataset_delta), -e, x.index) for x, e in zip(after, effects)]
    assert keys == sorted(keys) and len(set(effects)) > 1  # not row order: the effect decides ties
