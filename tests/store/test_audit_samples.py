"""Audit samples: stored (migration 006) on SQLite and PostgreSQL, shared by annotators, grown uniformly;
pairing people's labels from the store (only reviewed members count); the export's audit_sample column;
``ragviz estimate --db``."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from ragviz.analysis.estimates.audit_progress import audit_progress
from ragviz.analysis.estimates.pairing import member_rows, pair_store
from ragviz.analysis.estimates.report import estimate_report
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.cli.main import main
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.data.load import load
from ragviz.export.rows import export_rows
from ragviz.store.audit_samples import AuditSampleError, draw_order, population_fingerprint
from ragviz.store.label_store import LabelStore
from tests.sample import SAMPLE_JSONL

UIDS = [f"toy/q{i}/gen" for i in range(40)]


@pytest.fixture
def store(db_target):
    with LabelStore(db_target) as s:
        yield s


@pytest.fixture(scope="module")
def data():
    result = load([SAMPLE_JSONL])
    assert result.ok
    return result.dataset


def test_migration_006_creates_the_sample_tables(store):
    assert "006_audit_samples" in store.applied_migrations()
    assert {"audit_samples", "audit_sample_members"} <= set(store.db.table_names())


def test_a_drawn_sample_is_stored_with_its_seed_and_members_and_shared(store, db_target):
    sample = store.audits.draw_sample(UIDS, 10, "ana", seed=42)
    assert sample.seed == 42 and sample.created_by == "ana" and sample.size == 10
    assert sample.members == tuple(draw_order(UIDS, 42)[:10])
    assert len(set(sample.members)) == 10 and set(sample.members) <= set(UIDS)
    # the same seed draws the same sample whatever order the rows came in
    assert draw_order(list(reversed(UIDS)), 42) == draw_order(UIDS, 42)
    with LabelStore(db_target) as other:  # another annotator's process sees it
        assert other.audits.get_sample(sample.id) == sample
        assert [s.id for s in other.audits.list_samples(UIDS)] == [sample.id]
        assert other.audits.list_samples(UIDS[:-1]) == []  # drawn from other examples: not offered
        assert other.audits.audit_members() == set(sample.members)


def test_a_fresh_seed_is_recorded_when_none_is_given(store):
    a, b = store.audits.draw_sample(UIDS, 5, "ana"), store.audits.draw_sample(UIDS, 5, "ben")
    assert a.seed != b.seed
    assert a.members == tuple(draw_order(UIDS, a.seed)[:5])
    assert [s.id for s in store.audits.list_samples()] == [b.id, a.id]  # newest first


def test_growing_keeps_the_members_and_takes_the_next_of_the_same_order(store, db_target):
    sample = store.audits.draw_sample(UIDS, 5, "ana", seed=7)
    grown = store.audits.grow_sample(sample.id, UIDS, 12, "ben")
    assert grown.members[:5] == sample.members
    assert grown.members == tuple(draw_order(UIDS, 7)[:12])
    # a second replica growing to the same size at once adds nothing twice
    with LabelStore(db_target) as other:
        again = other.audits.grow_sample(sample.id, list(reversed(UIDS)), 12, "cy")
    assert again.members == grown.members
    assert store.audits.grow_sample(sample.id, UIDS, 3, "ana").members == grown.members  # never shrinks


def test_bad_sizes_and_other_data_are_refused_with_a_message(store):
    with pytest.raises(AuditSampleError, match="larger than the 40 loaded examples"):
        store.audits.draw_sample(UIDS, 41, "ana")
    with pytest.raises(AuditSampleError, match="at least 1"):
        store.audits.draw_sample(UIDS, 0, "ana")
    sample = store.audits.draw_sample(UIDS, 5, "ana", seed=1)
    with pytest.raises(AuditSampleError, match="drawn from 40 other examples than the 39 loaded"):
        store.audits.grow_sample(sample.id, UIDS[:-1], 10, "ana")
    with pytest.raises(AuditSampleError, match="no audit sample 999"):
        store.audits.grow_sample(999, UIDS, 10, "ana")
    assert store.audits.get_sample(sample.id).size == 5


def test_every_example_is_equally_likely_and_grown_samples_stay_uniform():
    """Over 3,000 seeds each of 10 uids is in a sample of 3 about 30 % of the time, and in the
    sample grown to 6 about 60 % (a hand-picked or order-biased draw fails this)."""
    uids = [f"u{i}" for i in range(10)]
    first, grown = Counter(), Counter()
    seeds = range(3000)
    for seed in seeds:
        order = draw_order(uids, seed)
        first.update(order[:3])
        grown.update(order[:6])
    for uid in uids:
        assert abs(first[uid] / len(seeds) - 0.3) < 0.035, (uid, first[uid])
        assert abs(grown[uid] / len(seeds) - 0.6) < 0.035, (uid, grown[uid])
    assert population_fingerprint(["b", "a"]) == population_fingerprint(["a", "b", "b"])


def _review(store, ds, row: int, who: str, relevant=None):
    ex = ds.example(row)
    changes = [Change(REVIEW_FIELD, None, REVIEWED)]
    if relevant is not None:
        old = field_value(store.current_labels(ex, who), "relevant_keys")
        changes.insert(0, Change("relevant_keys", old, relevant))
    store.record(ex.uid, who, changes, example=ex)


def test_only_reviewed_members_are_audited_and_the_rest_is_named(db_target, data):
    with LabelStore(db_target) as store:
        sample = store.audits.draw_sample(data.uids, 8, "ana", seed=3)
        rows = member_rows(data, sample.members)
        assert len(rows) == 8 and rows == sorted(rows)
        outside = next(i for i in range(len(data)) if data.uids[i] not in sample.members)
        for i in rows[:5]:
            _review(store, data, i, "ana" if i % 2 else "ben", relevant=[])  # two annotators share it
        _review(store, data, outside, "ana", relevant=[])  # triage led there: not random
        pairing = pair_store(data, store, sample.members)
        audited = {e.uid for e in pairing.examples if e.audited}
        assert audited == {data.uids[i] for i in rows[:5]}
        assert pairing.n_unlabeled == len(data) - 5
        assert any(
            "1 reviewed examples are outside the audit sample" in w and "not a random sample" in w
            for w in pairing.warnings
        )
        assert any("3 audit-sample examples are not reviewed yet" in w for w in pairing.warnings)
        # people said nothing is relevant on the audited ones: their relevance is 0
        assert all(
            e.human["relevance"] == 0.0 for e in pairing.examples if e.audited and e.human.get("relevance") is not None
        )
        report = estimate_report(pairing)
        assert report.overall.n_labeled == 5
        assert report.overall.metrics["relevance"].human.estimate == 0.0
        progress = audit_progress(
            sample.members, set(store.reviewed_uids("ana")) | store.reviewed_uids("ben"), sample.id
        )
        assert (progress.size, progress.reviewed, progress.outside) == (8, 5, 1)
        assert progress.next_uid == next(u for u in sample.members if data.index_of(u) not in rows[:5])
        assert "5 of 8 reviewed" in progress.line() and "1 reviewed examples outside it" in progress.line()

        # the export says which human rows were reviewed as part of the sample
        exported = {
            r["id"] + "/" + r["generation_model_name"]: r for r in export_rows(data, store, LabelSelection.of("ana"))
        }
        flags = {(r["label_source"], r["audit_sample"]) for r in exported.values()}
        assert ("human", False) in flags and ("human", True) in flags and ("llm", True) not in flags
        n_flagged = sum(1 for r in exported.values() if r["audit_sample"])
        assert n_flagged == sum(1 for i in rows[:5] if i % 2)  # ana's own reviews in the sample


def test_estimate_db_reads_labels_and_membership_from_the_store(db_target, data, capsys, tmp_path):
    with LabelStore(db_target) as store:
        sample = store.audits.draw_sample(data.uids, 10, "ana", seed=5)
        rows = member_rows(data, sample.members)
        for i in rows[:6]:
            _review(store, data, i, "ana", relevant=[])
        outside = next(i for i in range(len(data)) if data.uids[i] not in sample.members)
        _review(store, data, outside, "ana", relevant=[])
        expected = estimate_report(pair_store(data, store, sample.members)).as_dict()
    assert main(["estimate", str(SAMPLE_JSONL), "--db", db_target, "--format", "json"]) == 0
    out = capsys.readouterr()
    got = json.loads(out.out)
    assert got.pop("design") == {"name": "uniform", "sample": sample.id, "interval": None, "minutes_per_example": 4.0}
    expected.pop("design")
    assert got == expected
    assert got["n_labeled"] == 6 and got["n_unlabeled"] == len(data) - 6
    assert "1 reviewed examples are outside the audit sample" in out.err
    assert "note: Too few reviewed to correct yet: 94 more needed" in out.err  # 6 audited, under the minimum


def test_estimate_db_bad_input_is_one_clear_line(tmp_path, capsys, data):
    missing = tmp_path / "nope.db"
    assert main(["estimate", str(SAMPLE_JSONL), "--db", str(missing)]) == 2
    assert "nope.db: no label store here" in capsys.readouterr().err
    db = tmp_path / "labels.db"
    with LabelStore(db):
        pass
    assert main(["estimate", str(SAMPLE_JSONL), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "no audit sample drawn from DATA's examples" in err and "Traceback" not in err
    with LabelStore(db) as store:
        store.audits.draw_sample(data.uids[:-1], 4, "ana", seed=1)
        other = store.audits.draw_sample(data.uids, 4, "ana", seed=2)
    assert main(["estimate", str(SAMPLE_JSONL), "--db", str(db), "--sample", "1"]) == 2
    assert "audit sample 1 was drawn from 21 other examples than DATA's 22" in capsys.readouterr().err
    assert main(["estimate", str(SAMPLE_JSONL), "--db", str(db), "--sample", str(other.id)]) == 2
    assert "nobody reviewed a member of the audit sample yet" in capsys.readouterr().err
    assert main(["estimate", str(SAMPLE_JSONL), "--db", str(db), "--human", str(SAMPLE_JSONL)]) == 2
    assert "not both" in capsys.readouterr().err


def test_estimate_db_wrong_url_masks_the_password(postgres_server, capsys):
    url = postgres_server.url("no_such_db").replace("@", ":s3cret@")
    assert main(["estimate", str(SAMPLE_JSONL), "--db", url]) == 2
    err = capsys.readouterr().err
    assert ":***@" in err and "no_such_db" in err and "s3cret" not in err and "Traceback" not in err
