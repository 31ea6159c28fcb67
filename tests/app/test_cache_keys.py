"""The Dashboard and Compare pages cache what they compute per state of the label store. A new judge
label set for an example that already had one (a re-judge: same number of judged examples, same
number of label events) must show on the next run, not the cached figures."""

from __future__ import annotations

from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.data.model import Provenance
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.sample import SAMPLE_DATA

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def test_rejudge_of_a_judged_example_refreshes_compare(app_env):
    ds = load([SAMPLE_DATA]).dataset
    judge = ds.example(ds.index_of(ML)).labels
    assert judge is not None and judge.relevant_keys
    with LabelStore(app_env["db"]) as store:
        store.judge.save(ML, judge.replace(provenance=Provenance("llm", "judge-v1")))
        store.record(ML, "tester", [Change("relevant_keys", list(judge.relevant_keys), [])])

    at = open_page("pages/compare.py")
    assert [m.value for m in at.metric][:2] == ["1", "1"]  # compared, differ

    # The judge is asked again and now marks nothing relevant either: llm and human agree.
    with LabelStore(app_env["db"]) as store:
        n_events, n_judged = store.n_events(), len(store.judge.judged_uids())
        store.judge.save(ML, judge.replace(relevant_keys=(), provenance=Provenance("llm", "judge-v2")))
        assert (store.n_events(), len(store.judge.judged_uids())) == (n_events, n_judged)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [m.value for m in at.metric][:2] == ["1", "0"]
    assert any("agree on every example" in s.value for s in at.success)
