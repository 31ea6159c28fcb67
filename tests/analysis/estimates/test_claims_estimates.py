"""Issue 23 item 4: corrected estimates for RagChecker's claim metrics. A checking output is the judge's
labels; an audit sample of its items drawn on the Claims page, reviewed by a person (overrides folded in),
corrects the file's means with PPI++ as TRACe is corrected."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from ragviz.analysis.claims import current_items, item_uids
from ragviz.analysis.estimates.claims import pair_claims, pair_claims_store
from ragviz.analysis.estimates.pairing import AuditError
from ragviz.analysis.estimates.report import estimate_report
from ragviz.data.claim_overrides import claim_field
from ragviz.data.formats.ragchecker import load_ragchecker
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
from ragviz.metrics.ragchecker import RAGCHECKER_METRICS, aggregate, item_scores
from ragviz.store.label_store import LabelStore
from tests.app.test_claims import EXAMPLE, need_example
from tests.cli_run import ragviz, ragviz_here

N_ITEMS, SAMPLE, REVIEWED_N = 160, 60, 40


@pytest.fixture
def checking_output(tmp_path):
    """RagChecker's example items repeated as 160 items, some labels of each flipped at random (a judge)."""
    need_example()
    raw = json.loads(EXAMPLE.read_text())["results"]
    rng = random.Random(3)
    results = []
    for i in range(N_ITEMS):
        item = json.loads(json.dumps(raw[i % len(raw)]))
        item["query_id"] = str(i)
        item["answer2response"] = [rng.choice(["Entailment", "Neutral"]) for _ in item["answer2response"]]
        results.append(item)
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"results": results}))
    return path


def review(store: LabelStore, path, who: str, n: int, seed: int = 11) -> list[str]:
    """Draw an audit sample and review its first *n* members: every second one a person sets its first
    response claim's label to Entailment (the judge under-credits it), the rest they accept."""
    items = load_ragchecker(path)
    uids = item_uids(items, path.name)
    sample = store.audits.draw_sample(uids, SAMPLE, who, seed=seed)
    by_uid = dict(zip(uids, items))
    for k, uid in enumerate(sample.members[:n]):
        changes = [Change(REVIEW_FIELD, None, REVIEWED)]
        old = by_uid[uid].answer2response[0]
        if k % 2 == 0 and old != "Entailment":
            changes.insert(0, Change(claim_field("answer2response", 0), old, "Entailment"))
        store.record(uid, who, changes)
    return list(sample.members[:n])


def test_the_pairing_takes_the_file_as_the_judge_and_the_reviewed_members_as_people(checking_output, tmp_path):
    with LabelStore(tmp_path / "s.db") as store:
        audited = review(store, checking_output, "ana", REVIEWED_N)
        pairing = pair_claims_store(str(checking_output), store)
        items = load_ragchecker(checking_output)
        currents, _ = current_items(items, checking_output.name, store, "ana")
    assert pairing.n_labeled == REVIEWED_N and pairing.n_unlabeled == N_ITEMS - REVIEWED_N
    assert {e.uid for e in pairing.examples if e.audited} == set(audited)
    report = estimate_report(pairing)
    file_means = aggregate([item_scores(it) for it in items])
    people = {e.uid: e.human for e in pairing.examples if e.audited}
    for name in RAGCHECKER_METRICS:
        m = report.overall.metrics[name]
        assert m.judge == pytest.approx(file_means[name])  # the judge alone: RagChecker's own mean
        assert m.human.estimate == pytest.approx(np.mean([people[u][name] for u in audited]))
        assert 0.0 <= m.ppi.low <= m.ppi.estimate <= m.ppi.high <= 1.0
    # people credited claims the judge did not: precision corrected upward, the others untouched here
    precision = report.overall.metrics["precision"]
    assert precision.human.estimate > np.mean([item_scores(items[int(u.split("/")[-1])]).precision for u in audited])
    assert report.overall.metrics["claim_recall"].ppi.estimate == pytest.approx(file_means["claim_recall"])
    # the same pairing from the items in hand (the Claims page's path)
    again = pair_claims(checking_output.name, items, currents, set(audited))
    assert [e.human for e in again.examples] == [e.human for e in pairing.examples]


def test_bad_input_names_the_file_and_what_to_do(checking_output, tmp_path):
    with LabelStore(tmp_path / "s.db") as store:
        with pytest.raises(AuditError, match=r"run\.json: no audit sample of this file's items .* Claims page"):
            pair_claims_store(str(checking_output), store)
        review(store, checking_output, "ana", 5)
        review(store, checking_output, "ben", 5, seed=11)  # the same draw: one sample, two reviewers
        with pytest.raises(
            AuditError, match=r"ana, ben reviewed items of audit sample \d: choose one with --annotator"
        ):
            pair_claims_store(str(checking_output), store)
        assert pair_claims_store(str(checking_output), store, annotator="ben").n_labeled == 5
        with pytest.raises(AuditError, match="audit sample 9 was not drawn from this file's 160 items"):
            pair_claims_store(str(checking_output), store, sample_id=9)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with LabelStore(tmp_path / "t.db") as store, pytest.raises(AuditError, match="broken.json"):
        pair_claims_store(str(broken), store)


def test_ragviz_estimate_family_ragchecker(checking_output, tmp_path):
    db = tmp_path / "s.db"
    with LabelStore(db) as store:
        review(store, checking_output, "ana", REVIEWED_N)
        expected = estimate_report(pair_claims_store(str(checking_output), store)).as_dict()
    done = ragviz_here("estimate", str(checking_output), "--family", "ragchecker", "--db", str(db), "--format", "json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown == json.loads(json.dumps(expected))
    assert set(shown["metrics"]) == set(RAGCHECKER_METRICS)
    table = ragviz_here("estimate", str(checking_output), "--family", "ragchecker", "--db", str(db))
    assert table.returncode == 0 and "precision" in table.stdout and "faithfulness" in table.stdout
    no_db = ragviz("estimate", str(checking_output), "--family", "ragchecker")
    assert no_db.returncode == 2 and "give --db" in no_db.stderr and "Traceback" not in no_db.stderr
