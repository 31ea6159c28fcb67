"""A team's round in a real store (SQLite and PostgreSQL): assignments with overlap, guidelines, adjudication events."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from ragviz.analysis.team.adjudicate import settle_example, shown_now
from ragviz.analysis.team.gold import example_round
from ragviz.data.labels import RELEVANT_FIELD, REVIEW_FIELD, REVIEWED
from ragviz.store.label_store import LabelStore
from ragviz.store.team.adjudications import StaleAdjudication
from ragviz.store.team.assignments import AssignmentError, plan_assignments
from ragviz.store.team.guidelines import MAX_GUIDELINES_BYTES, GuidelinesError
from tests.analysis.test_agreement import labels, make_example


def _loads(current: dict[str, tuple[str, ...]]) -> Counter:
    return Counter(n for who in current.values() for n in who)


@pytest.mark.parametrize(
    ("n_examples", "overlap", "pool"), [(1, 1, 1), (10, 3, 3), (101, 3, 20), (57, 2, 5), (9, 5, 7)]
)
def test_plan_gives_every_example_its_overlap_and_balanced_queues(n_examples, overlap, pool):
    uids = [f"u{i}" for i in range(n_examples)]
    names = [f"a{j}" for j in range(pool)]
    pairs = plan_assignments(uids, overlap, names, {})
    per_example: dict[str, list[str]] = {}
    for uid, name in pairs:
        per_example.setdefault(uid, []).append(name)
    assert set(per_example) == set(uids)
    assert all(len(who) == overlap and len(set(who)) == overlap for who in per_example.values())
    loads = Counter(name for _, name in pairs)
    sizes = [loads.get(n, 0) for n in names]
    assert max(sizes) - min(sizes) <= 1


def test_assign_tops_up_refuses_bad_input_and_a_leaver_is_one_action(db_target):
    uids = [f"toy/q{i}/m" for i in range(12)]
    with LabelStore(db_target) as store:
        with pytest.raises(AssignmentError, match="overlap 4 is larger than the pool of 3 annotators"):
            store.team.assignments.assign(uids, 4, ["ana", "bo", "cy"], "lead")
        with pytest.raises(AssignmentError, match="overlap must be a whole number from 1 to 5"):
            store.team.assignments.assign(uids, 6, ["ana", "bo", "cy", "di", "ed", "fi"], "lead")
        assert store.team.assignments.assigned() == {}  # nothing stored by a refused call
        made = store.team.assignments.assign(uids, 2, ["ana", "bo", "cy", "di"], "lead")
        assert made.added == 24
        current = store.team.assignments.assigned()
        assert all(len(set(who)) == 2 for who in current.values()) and sorted(_loads(current).values()) == [6] * 4
        again = store.team.assignments.assign(uids, 2, ["ana", "bo", "cy", "di"], "lead")
        assert again.added == 0  # already at overlap
        mine = [uid for uid, who in current.items() if "ana" in who]
        for uid in mine[:2]:  # ana decides two of her six, then leaves
            store.record(uid, "ana", [(REVIEW_FIELD, None, REVIEWED)], action="accept")
        with pytest.raises(AssignmentError, match=r"not in the pool but holding open assignments: ana \(4 open\)"):
            store.team.assignments.assign(uids, 2, ["bo", "cy", "di"], "lead")
        assert store.team.assignments.assigned() == current
        moved = store.team.assignments.reassign_leaver("ana", "lead")
        assert moved.added == 4
        after = store.team.assignments.assigned()
        assert all(len(set(who)) == 2 for who in after.values())
        assert sorted(uid for uid, who in after.items() if "ana" in who) == sorted(mine[:2])  # her decided ones stay
        others = [n for n in _loads(after).items() if n[0] != "ana"]
        assert sum(k for _, k in others) == 22 and max(k for _, k in others) <= 8
        with pytest.raises(AssignmentError, match="has no assignments"):
            store.team.assignments.reassign_leaver("zed", "lead")


def test_a_leave_with_nobody_to_take_over_is_refused_and_changes_nothing(db_target):
    with LabelStore(db_target) as store:
        store.team.assignments.assign(["a/1/m", "a/2/m"], 2, ["ana", "bo"], "lead")
        before = store.team.assignments.assigned()
        with pytest.raises(AssignmentError, match="need 2 annotators and only 1 others are in the pool"):
            store.team.assignments.reassign_leaver("ana", "lead")
        assert store.team.assignments.assigned() == before


def test_guidelines_are_versioned_recorded_with_each_decision_and_capped(db_target):
    with LabelStore(db_target) as store:
        store.record("a/1/m", "ana", [(REVIEW_FIELD, None, REVIEWED)])
        first = store.team.guidelines.save_guidelines("# Relevant\nA sentence is relevant when ...", "lead")
        assert first.version >= 1 and store.team.guidelines.current_guidelines() == first
        assert store.team.guidelines.save_guidelines(first.text, "lead") == first  # unchanged text: no new version
        store.record("a/2/m", "ana", [(REVIEW_FIELD, None, REVIEWED)])
        second = store.team.guidelines.save_guidelines(first.text + "\nSupport means ...", "lead")
        assert second.version > first.version
        store.record("a/3/m", "bo", [(REVIEW_FIELD, None, REVIEWED)])
        versions = store.team.guidelines.decision_versions()
        assert versions[("a/1/m", "ana")] is None
        assert versions[("a/2/m", "ana")] == first.version
        assert versions[("a/3/m", "bo")] == second.version
        with pytest.raises(GuidelinesError, match="over the 1 MB limit"):
            store.team.guidelines.save_guidelines("x" * (MAX_GUIDELINES_BYTES + 1), "lead")
        assert store.team.guidelines.current_guidelines() == second  # nothing lost


def test_adjudication_settles_refuses_a_stale_one_and_undoes(db_target):
    judged = labels(["0a"], ["0a"])
    ex = replace(make_example(), labels=judged, judge_labels=judged)
    uid = ex.uid
    with LabelStore(db_target) as store:
        store.team.assignments.assign([uid], 2, ["ana", "bo"], "lead")
        store.record(uid, "ana", [(REVIEW_FIELD, None, REVIEWED)], example=ex)  # accepts the judge's
        store.record(uid, "bo", [(RELEVANT_FIELD, ["0a"], ["0a", "0b"])], example=ex)
        r, seen = shown_now(ex, store)
        assert r.ready and r.differences == (("relevant", "0b"),) and r.needs_adjudication
        # two adjudicators were shown the same state: the first settles, the second is refused
        settle_example(ex, store, "lead", {("relevant", "0b"): True}, seen)
        with pytest.raises(StaleAdjudication, match="changed since it was shown"):
            settle_example(ex, store, "other-lead", {("relevant", "0b"): False}, seen)
        (s,) = store.team.adjudications.settlements().values()
        assert s.adjudicator == "lead" and s.settled[RELEVANT_FIELD] == ["0a", "0b"]
        r = example_round(ex, store)
        assert r.gold is not None and r.gold.source == "adjudicated" and r.gold.by == "lead"
        assert r.gold.labels.relevant_keys == ("0a", "0b") and not r.needs_adjudication
        # an annotator changes their labels afterwards: the shown state is stale, the example is back in the queue
        _, seen_now = shown_now(ex, store)
        store.record(uid, "bo", [(RELEVANT_FIELD, ["0a", "0b"], ["0a", "0b", "1a"])], example=ex)
        with pytest.raises(StaleAdjudication):
            settle_example(ex, store, "lead", {("relevant", "0b"): True, ("relevant", "1a"): False}, seen_now)
        r = example_round(ex, store)
        assert r.stale and r.needs_adjudication and r.gold is not None  # the settlement stands until settled again
        assert store.team.adjudications.undo_settlement(uid, "lead") and store.team.adjudications.settlements() == {}
        assert example_round(ex, store).gold is None
        assert not store.team.adjudications.undo_settlement(uid, "lead")


def test_who_decided_when_and_the_round_version_follow_every_write(db_target):
    """``store.team.decided()`` (the round's table reads it) holds each annotator's latest decision time on what they
    reviewed or edited, nothing they undid; ``round_version()`` changes with an assignment, a decision, an undo, a
    judge label set and an adjudication, and not with a read."""
    judged = labels(["0a"], ["0a"])
    ex = replace(make_example(), labels=judged, judge_labels=judged)
    other = replace(make_example("q2"), labels=judged, judge_labels=judged)
    with LabelStore(db_target) as store:
        versions = [store.team.round_version()]
        assert store.team.decided() == {} and versions[0] == store.team.round_version()
        store.team.assignments.assign([ex.uid, other.uid], 2, ["ana", "bo"], "lead")
        versions.append(store.team.round_version())
        store.record(ex.uid, "ana", [(REVIEW_FIELD, None, REVIEWED)], example=ex)
        store.record(other.uid, "bo", [(RELEVANT_FIELD, ["0a"], [])], example=other)
        versions.append(store.team.round_version())
        decided = store.team.decided()
        assert set(decided) == {ex.uid, other.uid} and list(decided[ex.uid]) == ["ana"]
        assert decided[ex.uid]["ana"] == store.statuses("ana")[ex.uid].last_ts
        assert store.undo(other.uid, "bo")
        versions.append(store.team.round_version())
        assert set(store.team.decided()) == {ex.uid}  # undone: not decided any more
        store.judge.save(other.uid, judged)
        versions.append(store.team.round_version())
        store.record(ex.uid, "bo", [(RELEVANT_FIELD, ["0a"], ["0a", "0b"])], example=ex)
        r, seen = shown_now(ex, store)
        assert r.needs_adjudication
        settle_example(ex, store, "lead", {("relevant", "0b"): True}, seen)
        versions.append(store.team.round_version())
        assert len(set(versions)) == len(versions) and versions == sorted(versions)
        assert store.team.round_version() == versions[-1]
