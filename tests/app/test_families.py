"""The Review page's "Other metric families" panel under AppTest: marking a retrieved chunk relevant
moves MRR / Recall@k exactly as the formulas say, answer_similarity moves Tonic overall, chunk
labels set directly move the Tonic chunk metrics; every override is a store event (undo works) and
survives export -> reload."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.labels import (
    CHUNK_UTILIZED_FIELD,
    RELEVANT_IDS_FIELD,
    SIMILARITY_FIELD,
)
from ragviz.data.load import load, load_bytes
from ragviz.export.files import export_bytes
from ragviz.metrics.retrieval import example_retrieval
from ragviz.metrics.tonic import example_tonic
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, press
from tests.sample import ROOT, SAMPLE_DATA

APP = str(ROOT / "app.py")
TECH1 = "techqa_sample/tech-001/gpt-4o-mini"  # retrieved kb-214, kb-87, kb-311; gold kb-214, kb-87


def open_review(uid: str) -> AppTest:
    """The Review page on *uid* with the "Other metric families" expander opened (it draws its
    panel only while open)."""
    at = open_page("pages/review.py", uid=uid)
    at.session_state["review.families_open"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def scores(at: AppTest) -> dict[tuple[str, str], tuple[float, float]]:
    frame = next(
        f for f in (d.value for d in at.dataframe) if list(f.columns) == ["family", "metric", "judge", "now", "delta"]
    )
    return {(r.family, r.metric): (r.judge, r.now) for r in frame.itertuples()}


def editor(at: AppTest, prefix: str):
    found = [d for d in at.data_editor if d.key and d.key.startswith(prefix)]
    assert len(found) == 1, [d.key for d in at.data_editor]
    return found[0]


def edit(at: AppTest, prefix: str, rows: dict) -> AppTest:
    at.session_state[editor(at, prefix).key] = {"edited_rows": rows, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_marking_chunks_relevant_moves_mrr_and_recall_exactly_and_undo_restores(app_env):
    at = open_review(TECH1)
    s = scores(at)
    assert s[("retrieval · default", "mrr")] == (1.0, 1.0)
    assert s[("retrieval · default", "recall@1")] == (0.5, 0.5)
    table = editor(at, "review.families.retrieved.").value
    assert list(table["doc_id"]) == ["kb-214", "kb-87", "kb-311"] and list(table["relevant"]) == [True, True, False]

    # kb-214 (rank 1) not relevant: gold = {kb-87}; first relevant at rank 2 -> RR = 1/2
    edit(at, "review.families.retrieved.", {0: {"relevant": False}})
    s = scores(at)
    assert s[("retrieval · default", "mrr")] == (1.0, 0.5)
    assert s[("retrieval · default", "recall@1")] == (0.5, 0.0)
    assert s[("retrieval · default", "recall@3")] == (1.0, 1.0)
    assert s[("retrieval · default", "precision@3")][1] == pytest.approx(1 / 3)

    # kb-311 (rank 3) relevant too: gold = {kb-87, kb-311}; P@3 = 2/3, R@3 = 2/2, nDCG@3 = (1/log2 3 + 1/2) / (1 + 1/log2 3)
    edit(at, "review.families.retrieved.", {2: {"relevant": True}})
    s = scores(at)
    assert s[("retrieval · default", "precision@3")][1] == pytest.approx(2 / 3)
    assert s[("retrieval · default", "recall@3")][1] == 1.0
    import math

    assert s[("retrieval · default", "ndcg@3")][1] == pytest.approx((1 / math.log2(3) + 0.5) / (1 + 1 / math.log2(3)))
    assert list(editor(at, "review.families.retrieved.").value["relevant"]) == [False, True, True]

    store = LabelStore(app_env["db"])
    events = store.effective(TECH1, "tester")
    assert [(e.field, e.new) for e in events] == [
        (RELEVANT_IDS_FIELD, ["kb-87"]),
        (RELEVANT_IDS_FIELD, ["kb-87", "kb-311"]),
    ]
    assert TECH1 in store.corrected_uids("tester")

    press(at, "undo")
    assert scores(at)[("retrieval · default", "mrr")] == (1.0, 0.5)
    press(at, "undo")
    assert scores(at)[("retrieval · default", "mrr")] == (1.0, 1.0)
    assert TECH1 not in LabelStore(app_env["db"]).corrected_uids("tester")


def test_answer_similarity_moves_tonic_overall_and_chunk_labels_move_tonic(app_env):
    at = open_review(TECH1)
    ds = load([str(SAMPLE_DATA)]).dataset
    ex = ds.example(ds.index_of(TECH1))
    before = example_tonic(ex)
    s = scores(at)
    assert s[("tonic", "overall")] == (pytest.approx(before.overall), pytest.approx(before.overall))
    assert (
        s[("tonic", "answer_similarity")][1] is None
        or s[("tonic", "answer_similarity")][1] != s[("tonic", "answer_similarity")][1]
    )

    box = next(n for n in at.number_input if n.key.startswith("review.families.similarity."))
    box.set_value(4.0).run()
    assert not at.exception
    parts = [
        before.retrieval_precision,
        before.augmentation_accuracy,
        before.augmentation_precision,
        before.answer_consistency,
        before.answer_consistency_binary,
        4.0 / 5,
    ]
    s = scores(at)
    assert s[("tonic", "answer_similarity")][1] == 4.0
    assert s[("tonic", "overall")][1] == pytest.approx(sum(parts) / len(parts))
    assert s[("tonic", "overall")][0] == pytest.approx(before.overall)  # the judge side is unchanged

    # chunk 0 set "not used" directly: augmentation_accuracy = used / C
    used = list(editor(at, "review.families.chunks.").value["used"])
    edit(at, "review.families.chunks.", {0: {"used": False}})
    used[0] = False
    s = scores(at)
    assert s[("tonic", "augmentation_accuracy")][1] == pytest.approx(sum(used) / len(used))
    fields = [e.field for e in LabelStore(app_env["db"]).effective(TECH1, "tester")]
    assert fields == [SIMILARITY_FIELD, CHUNK_UTILIZED_FIELD]

    # the export carries the overrides; re-loading gives the same numbers, the originals as llm_ fields
    data = export_bytes(ds, LabelStore(app_env["db"]), LabelSelection.of("tester"), "jsonl")
    reloaded = load_bytes("reviewed.jsonl", data)
    assert not reloaded.errors, [str(p) for p in reloaded.errors]
    back = reloaded.dataset.example(reloaded.dataset.index_of(TECH1))
    assert back.extra["answer_similarity"] == 4.0
    assert example_tonic(back).overall == pytest.approx(s[("tonic", "overall")][1])
    judge_back = example_tonic(back, back.judge_labels)
    assert judge_back.augmentation_accuracy == pytest.approx(before.augmentation_accuracy)  # llm_chunk_utilized
    assert judge_back.augmentation_precision == pytest.approx(before.augmentation_precision)
    assert reloaded.dataset.row(reloaded.dataset.index_of(TECH1))["llm_chunk_utilized"] == [True, True, False]
    assert example_retrieval(back) == example_retrieval(ex)


def test_presentation_mode_shows_scores_without_controls(app_env):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["uid"] = TECH1
    at.query_params["present"] = "1"
    at.session_state["review.families_open"] = True
    at.switch_page("pages/review.py")
    at.run()
    assert not at.exception
    now_only = next(f for f in (d.value for d in at.dataframe) if "now" in f.columns and "metric" in f.columns)
    assert list(now_only.columns) == ["family", "metric", "now"]  # no judge column, no delta: corrections hidden
    assert not [d for d in at.data_editor if d.key and d.key.startswith("review.families.")]
    assert not [n for n in at.number_input if n.key and n.key.startswith("review.families.")]
    at.sidebar.button(key="review.present_corrections.button").click().run()  # the presenter shows them
    assert scores(at)[("retrieval · default", "mrr")] == (1.0, 1.0)
    assert not [d for d in at.data_editor if d.key and d.key.startswith("review.families.")]


def test_the_panel_is_drawn_only_while_its_button_has_it_open(app_env):
    """Closed (the default), the "Other metric families" button runs none of the panel: a J / K rerun skips its
    tables. A press opens it (the button's chevron turns up) and keeps it open on the next example; another closes it."""
    at = open_page("pages/review.py", uid=TECH1)
    assert not [d for d in at.data_editor if d.key and d.key.startswith("review.families.")]
    opener = at.button(key="review.families_open.rv_disclose")
    assert opener.label == "Other metric families"
    assert opener.proto.icon == ":material/expand_more:"
    opener.click().run()
    assert editor(at, "review.families.retrieved.")
    assert at.button(key="review.families_open.rv_disclose").proto.icon == ":material/expand_less:"
    press(at, "next")  # the next example: still open, its own tables
    assert not at.exception, [e.value for e in at.exception]
    assert editor(at, "review.families.retrieved.")
    at.button(key="review.families_open.rv_disclose").click().run()
    assert not [d for d in at.data_editor if d.key and d.key.startswith("review.families.")]
