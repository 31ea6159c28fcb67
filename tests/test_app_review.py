"""The Review page under Streamlit's AppTest: overrides move the metrics exactly as the formulas say,
undo restores them, decisions persist per annotator, filters, deep links, normalize, escaping."""

from __future__ import annotations

import html
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ragviz.data.load import load, load_bytes
from ragviz.export.files import export_bytes
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, shown

ROOT = Path(__file__).resolve().parents[1]
ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def open_review(**query: str) -> AppTest:
    return open_page("pages/review.py", **query)


def metrics(at: AppTest) -> dict[str, tuple[str, str]]:
    return {m.label: (m.value, m.delta) for m in at.metric}


def html_text(at: AppTest) -> str:
    return "\n".join(h.value for h in at.get("html"))


def tick(at: AppTest, row: int, column: str, value: bool = True) -> AppTest:
    """A tick in the context-sentence editor, as the browser sends it."""
    key = at.data_editor[0].key
    at.session_state[key] = {"edited_rows": {row: {column: value}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def control(at: AppTest, prefix: str):
    found = [w for w in [*at.segmented_control, *at.multiselect] if w.key and w.key.startswith(prefix)]
    assert len(found) == 1, [w.key for w in [*at.segmented_control, *at.multiselect]]
    return found[0]


def button(at: AppTest, key: str):
    return next(b for b in at.button if b.key == key)


def test_override_relevance_and_support_change_metrics_exactly_and_undo_restores(app_env):
    at = open_review(id="ml-vs-programming")
    assert at.query_params["uid"] == ML
    # the worked example: relevance 4/6, utilization 3/6, completeness 0.75, adherence 0
    assert metrics(at) == {
        "Relevance": ("0.667", ""),
        "Utilization": ("0.500", ""),
        "Completeness": ("0.750", ""),
        "Adherence": ("0.000", ""),
    }
    assert "relevance = |R| / N = 4 / 6" in html_text(at)

    tick(at, 0, "relevant")  # 0a becomes relevant: R = 5, |R ∩ U| = 3
    assert metrics(at)["Relevance"] == (f"{5 / 6:.3f}", f"{5 / 6 - 4 / 6:+.3f}")
    assert metrics(at)["Completeness"] == (f"{3 / 5:.3f}", f"{3 / 5 - 0.75:+.3f}")
    assert metrics(at)["Utilization"] == ("0.500", "")
    assert "relevance = |R| / N = 5 / 6" in html_text(at)
    assert 'data-key="0a"' in html_text(at) and "0a R</span>" in html_text(at)

    # response sentence c is selected by default (the first unsupported one); mark it supported by 1b
    assert control(at, "review.sentence.").value == "c"
    control(at, "review.support.").set_value("supported").run()
    control(at, "review.keys.").set_value(["1b"]).run()
    assert not at.exception
    assert metrics(at)["Adherence"] == ("1.000", "+1.000")
    assert "adherence = 1 (no unsupported sentence)" in html_text(at)
    # the selected sentence's supporting context sentence is outlined
    assert html_text(at).count("rv-linked") == 1 and 'rv-linked" data-key="1b"' in html_text(at)

    with LabelStore(app_env["db"]) as store:
        assert [f for f, _ in store.changes(ML, "tester")] == ["relevant_keys", "support:c", "support:c"]
        assert ML in store.corrected_uids("tester")
        ds = load([ROOT / "sample_data"]).dataset
        exported = [json.loads(line) for line in export_bytes(ds, store, "tester", "jsonl").decode().splitlines()]
    row = next(r for r in exported if r["id"] == "ml-vs-programming" and r["generation_model_name"] == "gpt-4o-mini")
    assert "0a" in row["all_relevant_sentence_keys"] and row["relevance_score"] == 5 / 6
    assert row["adherence_score"] is True and row["label_source"] == "human" and row["reviewer"] == "tester"
    assert row["llm_all_relevant_sentence_keys"] == ["0b", "0c", "1a", "1b"]

    for _ in range(2):
        button(at, "review.undo").click().run()
    assert metrics(at)["Adherence"] == ("0.000", "")
    assert metrics(at)["Relevance"] == ("0.833", "+0.167")
    button(at, "review.undo").click().run()
    assert metrics(at) == {
        "Relevance": ("0.667", ""),
        "Utilization": ("0.500", ""),
        "Completeness": ("0.750", ""),
        "Adherence": ("0.000", ""),
    }


def test_decisions_survive_a_new_session_and_annotators_are_kept_apart(app_env, monkeypatch):
    at = open_review(id="ml-vs-programming")
    tick(at, 0, "relevant")
    assert metrics(at)["Relevance"][0] == "0.833"

    again = open_review()  # a new browser session: resumes at the saved position with the saved labels
    assert again.query_params["uid"] == ML
    assert metrics(again)["Relevance"] == ("0.833", "+0.167")

    monkeypatch.setenv("RAGVIZ_ANNOTATOR", "someone-else")
    other = open_review(id="ml-vs-programming")
    assert metrics(other)["Relevance"] == ("0.667", "")


def test_accept_reset_progress_and_next_unreviewed(app_env):
    at = open_review(id="ml-vs-programming")
    at.toggle(key="review.advance").set_value(False).run()
    assert "0 / 22 reviewed" in at.sidebar.get("progress")[0].proto.text
    tick(at, 1, "relevant", False)  # 0b no longer relevant
    assert metrics(at)["Relevance"][0] == "0.500"
    button(at, "review.reset").click().run()
    assert metrics(at)["Relevance"] == ("0.667", "")
    tick(at, 1, "utilized", False)
    button(at, "review.accept").click().run()  # accept = back to the judge's labels + reviewed
    assert metrics(at)["Utilization"] == ("0.500", "")
    assert "1 / 22 reviewed" in at.sidebar.get("progress")[0].proto.text
    with LabelStore(app_env["db"]) as store:
        assert ML in store.reviewed_uids("tester") and ML not in store.corrected_uids("tester")

    first_uid = at.query_params["uid"]
    button(at, "review.next_unreviewed").click().run()
    assert at.query_params["uid"] != first_uid
    at.toggle(key="review.advance").set_value(True).run()
    before = at.query_params["uid"]
    button(at, "review.accept").click().run()  # accept and move on
    assert at.query_params["uid"] != before
    assert "2 / 22 reviewed" in at.sidebar.get("progress")[0].proto.text


def test_next_previous_and_filters(app_env):
    at = open_review()
    first = at.query_params["uid"]
    button(at, "review.next").click().run()
    second = at.query_params["uid"]
    assert second != first
    button(at, "review.prev").click().run()
    assert at.query_params["uid"] == first
    assert button(at, "review.prev").disabled

    ds = load([ROOT / "sample_data"]).dataset
    from ragviz.metrics.trace import example_trace

    zero = [ex.uid for ex in ds if example_trace(ex).adherence == 0.0]
    at.toggle(key="review.f_adherence0").set_value(True).run()
    seen = []
    if at.query_params["uid"] in zero:
        seen.append(at.query_params["uid"])
    while not button(at, "review.next").disabled:
        button(at, "review.next").click().run()
        seen.append(at.query_params["uid"])
    assert seen[-len(zero) :] == zero[-len(seen) :] and set(seen) <= set(zero)
    assert f"of {len(zero)} match" in html_text(at)

    at.toggle(key="review.f_adherence0").set_value(False).run()
    at.multiselect(key="review.f_subsets").set_value(["medqa_sample"]).run()
    at.toggle(key="review.f_flags").set_value(True).run()
    assert not at.exception
    while not button(at, "review.next").disabled:
        button(at, "review.next").click().run()
    assert at.query_params["uid"].startswith("medqa_sample/")


def test_deep_links(app_env):
    at = open_review(uid="medqa_sample/med-001/gpt-4o-mini")
    assert at.query_params["uid"] == "medqa_sample/med-001/gpt-4o-mini"
    ds = load([ROOT / "sample_data"]).dataset
    repeated = [i for i in ds.ids if ds.ids.count(i) > 1][0]
    first_row = ds.ids.index(repeated)
    at = open_review(id=repeated)
    assert at.query_params["uid"] == ds.uids[first_row]
    bad = open_review(id="no-such-example")
    assert any("no-such-example" in shown(w.value) for w in bad.warning)


def test_normalize_fixes_mechanical_flags(app_env):
    at = open_review(uid="techqa_sample/tech-001/gpt-4o-mini")
    assert "0b." in html_text(at)
    assert not any(m.value.startswith("**Label-quality flags: 0") for m in at.markdown)
    button(at, "review.normalize").click().run()
    assert any(m.value == "**Label-quality flags: 0**" for m in at.markdown)
    assert "0b R+U" in html_text(at)
    button(at, "review.undo").click().run()
    assert "0b." in html_text(at)


def test_unlabeled_example_shows_no_scores_until_labelled(app_env):
    at = open_review(uid="techqa_sample/tech-005/llama-3.1-8b-instruct")
    if at.query_params["uid"] != "techqa_sample/tech-005/llama-3.1-8b-instruct":
        ds = load([ROOT / "sample_data"]).dataset
        uid = next(ex.uid for ex in ds if ex.id == "tech-005")
        at = open_review(uid=uid)
    assert {v for v, _ in metrics(at).values()} == {"—"}
    assert button(at, "review.accept").disabled
    n = len(at.data_editor[0].value)
    tick(at, 0, "relevant")
    assert metrics(at)["Relevance"][0] == f"{1 / n:.3f}"


def test_document_text_is_shown_literally(app_env):
    at = open_review(id="tech-002")
    body = html_text(at)
    for hostile in ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>"):
        assert html.escape(hostile) in body
    assert "<script" not in body and "<img" not in body
    assert "**bold**" in body and "$5 and $6" in body


def test_bad_upload_keeps_saved_work(app_env):
    at = open_review(id="ml-vs-programming")
    tick(at, 0, "relevant")
    at.switch_page("pages/data.py").run()
    at.get("file_uploader")[0].upload("broken.jsonl", b'{"id": "x", "question": 1}\n{not json\n').run()
    assert not at.exception
    assert any("Not loaded" in e.value for e in at.error)
    assert "broken.jsonl:2" in html_text(at)
    at.switch_page("pages/review.py").run()
    assert at.query_params["uid"] == ML
    assert metrics(at)["Relevance"][0] == "0.833"
    assert load_bytes("broken.jsonl", b"{not json\n").errors


def test_review_offers_rejudge_and_explains_missing_settings(app_env, monkeypatch):
    """The Review page has the judge's "Re-judge this example" button; without a model set on
    the Label page, a click explains what is missing and changes nothing."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = open_review(id="ml-vs-programming")
    before = metrics(at)
    at.session_state["label.model"] = ""
    button(at, "review.rejudge").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Judge settings" in e.value for e in at.error)
    assert metrics(at) == before


def test_two_tabs_of_one_annotator_the_later_stale_edit_is_refused_and_shown(app_env):
    """Two sessions (tabs) of one annotator on one example: tab 1 marks response sentence c
    supported; tab 2, still drawn from the older labels (c unsupported), picks 1b as its support.
    Tab 2's edit is refused with a message naming the newer value, tab 2 redraws with tab 1's
    labels, and tab 1's edit stays; redone from the newer labels, tab 2's edit is stored."""
    tab1, tab2 = open_review(id="ml-vs-programming"), open_review(id="ml-vs-programming")
    control(tab1, "review.support.").set_value("supported").run()
    assert metrics(tab1)["Adherence"] == ("1.000", "+1.000")
    assert metrics(tab2)["Adherence"] == ("0.000", "")  # tab 2 has not rerun yet
    control(tab2, "review.keys.").set_value(["1b"]).run()
    assert not tab2.exception, [e.value for e in tab2.exception]
    warnings = [w.value for w in tab2.warning if "Not saved" in w.value]
    assert len(warnings) == 1 and "support:c" in warnings[0] and '"supported": true' in warnings[0], warnings
    assert metrics(tab2)["Adherence"] == ("1.000", "+1.000")  # redrawn with the newer labels
    assert control(tab2, "review.support.").value == "supported"
    with LabelStore(app_env["db"]) as store:
        assert [(v["supported"], v["supporting_keys"]) for _, v in store.changes(ML, "tester")] == [(True, [])]
    control(tab2, "review.keys.").set_value(["1b"]).run()
    assert not [w.value for w in tab2.warning if "Not saved" in w.value]  # shown once
    with LabelStore(app_env["db"]) as store:
        assert [(v["supported"], v["supporting_keys"]) for _, v in store.changes(ML, "tester")] == [
            (True, []),
            (True, ["1b"]),
        ]
    assert html_text(tab2).count("rv-linked") == 1
