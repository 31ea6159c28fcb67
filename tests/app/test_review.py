"""The Review page under Streamlit's AppTest: overrides move the metrics exactly as the formulas say,
undo restores them, decisions persist per annotator, filters, deep links, normalize, escaping."""

from __future__ import annotations

import json
import re

from streamlit.testing.v1 import AppTest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.load import load, load_bytes
from ragviz.export.files import export_bytes
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import (
    click_sentence,
    component_data,
    edit_sentence,
    open_page,
    open_queue,
    page_html,
    press,
    queue_buttons,
    response_editor,
    review_metrics,
    shown,
    text_editor,
    theme_element,
    toolbar_button,
)
from tests.sample import SAMPLE_DATA

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def open_review(**query: str) -> AppTest:
    return open_page("pages/review.py", **query)


def metrics(at: AppTest) -> dict[str, tuple[str, str]]:
    return review_metrics(at)


def progress_text(at: AppTest) -> str:
    """The sidebar's progress line (an HTML block, ``ragviz.ui.review.page.progress_html``)."""
    return next(h.value for h in at.sidebar.get("html") if 'class="rv-progress"' in h.value)


def early_element(at: AppTest) -> str:
    """The page's one script of its own: exactly the constant markup of ``toolbar.early_html`` (the bar's shortcuts,
    the files to ask for early), first on the page; nothing from data. The only other script is app.py's
    :func:`theme_element`, exactly its constant text, in the same element (one hidden element, not two)."""
    from ragviz.ui.review import editor_files, toolbar

    scripts = [h.value for h in at.get("html") if "<script" in h.value]
    if toolbar.NAME not in toolbar.SERVED:  # the bar's files inline (its module first imported outside a run): none
        assert scripts == [theme_element()], scripts
        return ""
    editor = editor_files.served_paths(toolbar.SERVED)
    early = toolbar.early_html(True, "", [*editor, *toolbar.loader_chunks()])
    assert scripts == [early + theme_element()], scripts
    return early


def html_text(at: AppTest) -> str:
    """The page's HTML blocks as read: a no-break space as a space, a fraction's one-line span as its text."""
    text = page_html(at).replace("\u00a0", " ")
    return re.sub(r'<span style="white-space:nowrap">(.*?)</span>', r"\1", text)


def tick(at: AppTest, row: int, column: str, value: bool = True) -> AppTest:
    """Set *column* (relevant / utilized) of the *row*-th context sentence to *value* by clicks on
    the sentence in the text editor, as the browser sends them (each click one label step)."""
    from ragviz.analysis.review.text import next_state, state_ticks

    context = text_editor(at)
    key = [k for doc in context["docs"] for k, _ in doc["s"]][row]
    seen = context["states"].get(key, "neither")
    want = {**state_ticks(seen), column: value}
    while state_ticks(seen) != want:
        click_sentence(at, key)
        seen = next_state(seen)
    return at


def verdict(at: AppTest) -> str | None:
    """The verdict the selected response sentence's control shows chosen (under the response, in its editor)."""
    return response_editor(at)["controls"]["status"]


def supporting(at: AppTest) -> list[str]:
    """The supporting keys the selected response sentence's picker shows."""
    return response_editor(at)["controls"]["keys"]


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
    assert text_editor(at)["states"]["0a"] == "relevant"

    # response sentence c is selected by default (the first unsupported one); mark it supported by 1b
    assert text_editor(at, "response")["selected"] == "c"
    edit_sentence(at, "verdict", "supported")
    edit_sentence(at, "keys", ["1b"])
    assert not at.exception
    assert metrics(at)["Adherence"] == ("1.000", "+1.000")
    assert "adherence = 1 (no unsupported sentence)" in html_text(at)
    # the selected sentence's supporting context sentence is outlined
    assert text_editor(at)["linked"] == ["1b"]

    with LabelStore(app_env["db"]) as store:
        assert [f for f, _ in store.changes(ML, "tester")] == ["relevant_keys", "support:c", "support:c"]
        assert ML in store.corrected_uids("tester")
        ds = load([SAMPLE_DATA]).dataset
        exported = [
            json.loads(line)
            for line in export_bytes(ds, store, LabelSelection.of("tester"), "jsonl").decode().splitlines()
        ]
    row = next(r for r in exported if r["id"] == "ml-vs-programming" and r["generation_model_name"] == "gpt-4o-mini")
    assert "0a" in row["all_relevant_sentence_keys"] and row["relevance_score"] == 5 / 6
    assert row["adherence_score"] is True and row["label_source"] == "human" and row["reviewer"] == "tester"
    assert row["llm_all_relevant_sentence_keys"] == ["0b", "0c", "1a", "1b"]

    for _ in range(2):
        press(at, "undo")
    assert metrics(at)["Adherence"] == ("0.000", "")
    assert metrics(at)["Relevance"] == ("0.833", "+0.167")
    press(at, "undo")
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
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.toggle(key="review.advance").set_value(False).run()
    assert "0 / 22 reviewed" in progress_text(at)
    tick(at, 1, "relevant", False)  # 0b no longer relevant
    assert metrics(at)["Relevance"][0] == "0.500"
    press(at, "reset")
    assert metrics(at)["Relevance"] == ("0.667", "")
    tick(at, 1, "utilized", False)
    press(at, "accept")  # accept = the labels as shown are right: the correction stays
    assert metrics(at)["Utilization"] == ("0.333", "-0.167")
    assert "1 / 22 reviewed (1 corrected)" in progress_text(at)
    with LabelStore(app_env["db"]) as store:
        assert ML in store.reviewed_uids("tester") and ML in store.corrected_uids("tester")
    press(at, "undo")  # undoes the accept only
    assert metrics(at)["Utilization"] == ("0.333", "-0.167")
    for _ in range(3):  # then the three clicks that took utilized away (R+U -> U -> none -> R)
        press(at, "undo")
    assert metrics(at)["Utilization"] == ("0.500", "")
    assert "0 / 22 reviewed" in progress_text(at)
    press(at, "accept")
    assert "1 / 22 reviewed (0 corrected)" in progress_text(at)

    first_uid = at.query_params["uid"]
    press(at, "next_unreviewed")
    assert at.query_params["uid"] != first_uid
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.toggle(key="review.advance").set_value(True).run()
    before = at.query_params["uid"]
    press(at, "accept")  # accept and move on
    assert at.query_params["uid"] != before
    assert "2 / 22 reviewed" in progress_text(at)


def test_next_previous_and_filters(app_env):
    at = open_review()
    first = at.query_params["uid"]
    press(at, "next")
    second = at.query_params["uid"]
    assert second != first
    press(at, "prev")
    assert at.query_params["uid"] == first
    assert toolbar_button(at, "prev")["disabled"]

    ds = load([SAMPLE_DATA]).dataset
    from ragviz.metrics.trace import example_trace

    zero = [ex.uid for ex in ds if example_trace(ex).adherence == 0.0]
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.toggle(key="review.f_adherence0").set_value(True).run()
    seen = []
    if at.query_params["uid"] in zero:
        seen.append(at.query_params["uid"])
    while not toolbar_button(at, "next")["disabled"]:
        press(at, "next")
        seen.append(at.query_params["uid"])
    assert seen[-len(zero) :] == zero[-len(seen) :] and set(seen) <= set(zero)
    assert f"of {len(zero)} match" in html_text(at)
    assert queue_buttons(at) == ["Queue: all examples · 1 filter · Accept → next unreviewed"]  # the filters' popover

    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.toggle(key="review.f_adherence0").set_value(False).run()
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.multiselect(key="review.f_subsets").set_value(["medqa_sample"]).run()
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.toggle(key="review.f_flags").set_value(True).run()
    assert not at.exception
    assert queue_buttons(at) == ["Queue: all examples · 2 filters · Accept → next unreviewed"]
    while not toolbar_button(at, "next")["disabled"]:
        press(at, "next")
    assert at.query_params["uid"].startswith("medqa_sample/")


def test_the_bar_names_the_tab_title_of_the_example_shown_walking_forward_and_back(app_env):
    """The bar's data carries the browser tab's title of the example on screen, which its script sets once the example
    is drawn (issue 38): where the page is, walking forward and back, and with a filter on how many match."""

    def walk(steps: int, name: str) -> int:
        walked = 0
        for _ in range(steps):
            if toolbar_button(at, name)["disabled"]:
                break
            press(at, name)
            title = text_editor(at, "toolbar")["title"]
            assert title.endswith(" · Review · ragviz") and title.startswith("Example "), title
            walked += 1
        return walked

    at = open_review()
    assert text_editor(at, "toolbar")["title"].startswith("Example 1 of ")
    assert walk(3, "next") == 3 and text_editor(at, "toolbar")["title"].startswith("Example 4 of ")
    assert walk(3, "prev") == 3 and text_editor(at, "toolbar")["title"].startswith("Example 1 of ")
    open_queue(at)
    at.toggle(key="review.f_adherence0").set_value(True).run()  # "2 of 6 match" in the title
    assert walk(30, "next") >= 1 and "match" in text_editor(at, "toolbar")["title"]


def test_a_move_keeps_the_position_by_the_end_of_its_run(app_env):
    at = open_review()
    press(at, "next")
    press(at, "next")
    there = at.query_params["uid"]
    assert "review.position_pending" not in at.session_state  # written after the example was drawn, in that run
    assert open_review().query_params["uid"] == there  # a new browser session resumes there


def test_deep_links(app_env):
    at = open_review(uid="medqa_sample/med-001/gpt-4o-mini")
    assert at.query_params["uid"] == "medqa_sample/med-001/gpt-4o-mini"
    ds = load([SAMPLE_DATA]).dataset
    repeated = [i for i in ds.ids if ds.ids.count(i) > 1][0]
    first_row = ds.ids.index(repeated)
    at = open_review(id=repeated)  # several examples: listed, none opened
    assert "uid" not in at.query_params and not metrics(at)
    choices = [b for b in at.button if b.key and b.key.startswith("review.link_choice.")]
    assert len(choices) == len(ds.indices_of_id(repeated)) > 1
    assert any(repeated in shown(w.value) and "names" in w.value for w in at.warning)
    second = ds.indices_of_id(repeated)[1]
    choices[1].click().run()
    assert at.query_params["uid"] == ds.uids[second] and metrics(at)
    at = open_review(id=repeated, dataset=ds.datasets[first_row], model=ds.generation_models[first_row])
    assert at.query_params["uid"] == ds.uids[first_row]
    assert "id" not in at.query_params and "model" not in at.query_params
    bad = open_review(id="no-such-example")
    assert any("no-such-example" in shown(w.value) for w in bad.warning)


def test_normalize_fixes_mechanical_flags(app_env):
    at = open_review(uid="techqa_sample/tech-001/gpt-4o-mini")
    assert "0b." in html_text(at)
    assert "Label-quality flags: " in html_text(at) and "Label-quality flags: 0<" not in html_text(at)
    assert toolbar_button(at, "normalize")["label"] == "Normalize labels (2 mechanical fixes)"
    press(at, "normalize")
    assert "<strong>Label-quality flags: 0</strong>" in html_text(at)
    assert toolbar_button(at, "normalize") is None  # no flag left: no button
    assert text_editor(at)["states"]["0b"] == "both"
    press(at, "undo")
    assert "0b." in html_text(at)


def test_unlabeled_example_shows_no_scores_until_labelled(app_env):
    ds = load([SAMPLE_DATA]).dataset
    at = open_review(uid=next(ex.uid for ex in ds if ex.id == "tech-005"))
    assert {v for v, _ in metrics(at).values()} == {"—"}
    assert not toolbar_button(at, "accept")["disabled"]  # "nothing here is relevant" can be accepted too
    n = sum(len(doc["s"]) for doc in text_editor(at)["docs"])
    tick(at, 0, "relevant")
    assert metrics(at)["Relevance"][0] == f"{1 / n:.3f}"


def test_document_text_is_shown_literally(app_env):
    at = open_review(id="tech-002")
    own = early_element(at)  # ragviz's one script, constant: asks for the page's files early (issue 38)
    body = html_text(at).replace(own, "").replace(theme_element(), "")
    assert "<script" not in body and "<img" not in body
    # the documents go to the text editor as data, which the browser sets as text (textContent)
    texts = " ".join(text for doc in text_editor(at)["docs"] for _, text in doc["s"])
    for literal in ("<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "**bold**", "$5 and $6"):
        assert literal in texts, literal


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
    press(at, "rejudge")
    assert not at.exception, [e.value for e in at.exception]
    assert any("Judge settings" in e.value for e in at.error)
    assert metrics(at) == before


def test_two_tabs_of_one_annotator_the_later_stale_edit_is_refused_and_shown(app_env):
    """Two sessions (tabs) of one annotator on one example: tab 1 marks response sentence c
    supported; tab 2, still drawn from the older labels (c unsupported), picks 1b as its support.
    Tab 2's edit is refused with a message naming the newer value, tab 2 redraws with tab 1's
    labels, and tab 1's edit stays; redone from the newer labels, tab 2's edit is stored."""
    tab1, tab2 = open_review(id="ml-vs-programming"), open_review(id="ml-vs-programming")
    edit_sentence(tab1, "verdict", "supported")
    assert metrics(tab1)["Adherence"] == ("1.000", "+1.000")
    assert metrics(tab2)["Adherence"] == ("0.000", "")  # tab 2 has not rerun yet
    edit_sentence(tab2, "keys", ["1b"])
    assert not tab2.exception, [e.value for e in tab2.exception]
    warnings = [w.value for w in tab2.warning if "Not saved" in w.value]
    assert len(warnings) == 1 and "support:c" in warnings[0] and '"supported": true' in warnings[0], warnings
    assert metrics(tab2)["Adherence"] == ("1.000", "+1.000")  # redrawn with the newer labels
    assert verdict(tab2) == "supported"
    with LabelStore(app_env["db"]) as store:
        assert [(v["supported"], v["supporting_keys"]) for _, v in store.changes(ML, "tester")] == [(True, [])]
    edit_sentence(tab2, "keys", ["1b"])
    assert not [w.value for w in tab2.warning if "Not saved" in w.value]  # shown once
    with LabelStore(app_env["db"]) as store:
        assert [(v["supported"], v["supporting_keys"]) for _, v in store.changes(ML, "tester")] == [
            (True, []),
            (True, ["1b"]),
        ]
    assert len(text_editor(tab2)["linked"]) == 1


def test_a_click_on_text_drawn_from_older_labels_is_refused_and_shown(app_env):
    """The text editor keeps the no-lost-update rule: tab 1 makes 0a relevant; tab 2, still drawn
    from the older labels, clicks 1c (relevant_keys changed under it): refused with a message, tab 2
    redraws with 0a relevant, and its click, redone, is stored on top of tab 1's."""
    tab1, tab2 = open_review(id="ml-vs-programming"), open_review(id="ml-vs-programming")
    click_sentence(tab1, "0a")
    assert text_editor(tab1)["states"]["0a"] == "relevant"
    click_sentence(tab2, "1c")
    notice = text_editor(tab2)["notice"]  # said under the sentence clicked (the browser test: in view)
    assert notice["key"] == "1c" and "Not saved" in notice["text"] and "relevant_keys" in notice["text"], notice
    assert not [w.value for w in tab2.warning if "Not saved" in w.value]  # not at the top, far from the click
    assert text_editor(tab2)["states"]["0a"] == "relevant" and "1c" not in text_editor(tab2)["states"]
    click_sentence(tab2, "1c")
    assert text_editor(tab2)["states"]["1c"] == "relevant"
    with LabelStore(app_env["db"]) as store:
        assert [v for _, v in store.changes(ML, "tester")] == [
            ["0b", "0c", "1a", "1b", "0a"],
            ["0b", "0c", "1a", "1b", "0a", "1c"],
        ]


def test_a_click_drawn_from_older_labels_is_refused_though_only_the_other_field_changed(app_env):
    """Issue 28: tab 1 clicks 1c through none -> R -> R+U -> U; tab 2, still showing 1c "neither",
    clicks it once. relevant_keys is back where tab 2 saw it, utilized_keys is not: the click is
    refused with a message (before, it was stored and 1c became R+U, which neither tab meant)."""
    tab1, tab2 = open_review(id="ml-vs-programming"), open_review(id="ml-vs-programming")
    assert "1c" not in text_editor(tab2)["states"]
    for _ in range(3):
        click_sentence(tab1, "1c")
    assert text_editor(tab1)["states"]["1c"] == "utilized"
    click_sentence(tab2, "1c")
    notice = text_editor(tab2)["notice"]
    assert notice["key"] == "1c" and "utilized_keys" in notice["text"], notice
    assert text_editor(tab2)["states"]["1c"] == "utilized"  # redrawn with tab 1's label
    with LabelStore(app_env["db"]) as store:
        latest = dict(store.changes(ML, "tester"))  # the stored value of each field
        assert len(store.history(ML, "tester")) == 3  # tab 1's three clicks, nothing of tab 2's
    assert "1c" in latest["utilized_keys"] and "1c" not in latest["relevant_keys"]


def test_a_click_on_the_chosen_verdict_changes_nothing(app_env):
    """Issue 28: a click on "✓ supported" when it is already chosen stored ``fully_supported: None`` with an empty
    explanation while the page still showed "✓ supported". Now it records nothing and the control shows the verdict
    again: the browser sends nothing for it (tests/browser/test_review_edit.py), and the page refuses the chosen
    verdict sent again and a verdict that is neither choice."""
    at = open_review(id="ml-vs-programming")
    click_sentence(at, "a")  # supported by the judge
    assert verdict(at) == "supported"
    for sent in ("supported", None, "maybe"):
        edit_sentence(at, "verdict", sent)
        assert verdict(at) == "supported"
    assert metrics(at)["Adherence"] == ("0.000", "")
    with LabelStore(app_env["db"]) as store:
        assert store.history(ML, "tester") == []
    edit_sentence(at, "verdict", "unsupported")  # another verdict is still a change
    edit_sentence(at, "verdict", "unsupported")  # and clicking it again keeps it
    assert verdict(at) == "unsupported"
    with LabelStore(app_env["db"]) as store:
        assert [v["supported"] for _, v in store.changes(ML, "tester")] == [False]


def test_the_selected_response_sentence_follows_a_click_and_stays_through_edits(app_env):
    at = open_review(id="ml-vs-programming")
    assert text_editor(at, "response")["selected"] == "c"  # the first unsupported one
    click_sentence(at, "a")
    assert text_editor(at, "response")["selected"] == "a"
    assert response_editor(at)["explain"]["key"] == "a"  # its explanation under the response
    assert response_editor(at)["controls"]["verdict_label"] == "Sentence a is"
    assert text_editor(at)["linked"] == ["0b"]
    edit_sentence(at, "verdict", "unsupported")  # a is now the first unsupported
    click_sentence(at, "b")
    edit_sentence(at, "verdict", "unsupported")
    assert text_editor(at, "response")["selected"] == "b"


def test_shift_click_on_a_context_sentence_links_it_to_the_selected_response_sentence(app_env):
    """The browser sends Shift+click as a "link" event; it changes the selected sentence's supporting
    keys through the picker's change, and a second one takes the link away."""
    from ragviz.ui.review.sentence_editor import EVENTS

    at = open_review(id="ml-vs-programming")
    assert text_editor(at, "response")["selected"] == "c" and text_editor(at)["linked"] == []
    for linked in (True, False, True):
        at.session_state[EVENTS] = [{"uid": ML, "kind": "link", "key": "1b", "of": "c", "linked": linked}]
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert text_editor(at)["linked"] == (["1b"] if linked else [])
    assert supporting(at) == ["1b"]
    assert metrics(at)["Adherence"] == ("0.000", "")  # the verdict stays unsupported
    with LabelStore(app_env["db"]) as store:
        assert [v["supporting_keys"] for _, v in store.changes(ML, "tester")] == [["1b"], [], ["1b"]]


def test_unticking_and_ticking_a_box_again_is_no_change(app_env):
    """The text editor: clicks take 0b's relevant away, then round the labels back to relevant +
    utilized (the key lists come back in another order): the example is neither corrected nor
    reviewed, and Reset has nothing to reset."""
    at = open_review(id="ml-vs-programming")
    tick(at, 1, "relevant", False)
    assert "1 / 22 reviewed (1 corrected)" in progress_text(at)
    tick(at, 1, "relevant", True)
    assert metrics(at)["Relevance"] == ("0.667", "")
    assert "0 / 22 reviewed (0 corrected)" in progress_text(at)
    assert "not reviewed yet" in html_text(at) and toolbar_button(at, "reset")["disabled"]
    with LabelStore(app_env["db"]) as store:
        assert ML not in store.corrected_uids("tester") and ML not in store.reviewed_uids("tester")


def test_the_first_run_of_the_review_page_imports_no_heavy_library_it_does_not_use(tmp_path):
    """Issue 38: the Review page's first example waits for every module its first run imports. scipy (1.4 s of a first
    run under load: the audits' interval, imported through the audit queue), scikit-learn, the judge's client and
    altair and the export package are for pages and actions a person opens later; a fresh interpreter runs the page once and lists them."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    probe = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('app.py', default_timeout=90)\n"
        "at.switch_page('pages/review.py')\n"
        "at.run()\n"
        "assert not at.exception, [e.value for e in at.exception]\n"
        "assert at.get('bidi_component'), 'no text editor drawn'\n"
        "print(sorted(m for m in ('scipy', 'sklearn', 'openai', 'altair', 'vl_convert', 'ragviz.export') if m in sys.modules))\n"
    )
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "RAGVIZ_DATA": str(SAMPLE_DATA),
        "RAGVIZ_DB": str(tmp_path / "labels.db"),
        "RAGVIZ_ANNOTATOR": "alice",
        "PYTHONPATH": str(root),
    }
    out = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_an_example_from_a_trace_links_to_it_in_phoenix_and_the_others_do_not(app_env, monkeypatch):
    """The Review page's "Open its trace in Phoenix" under an example read from a trace (its side-car names the
    trace) when a Phoenix is known; the sample's examples, from no trace, have none."""
    from ragviz.data.formats.openinference import Span, map_traces
    from ragviz.export.traces.phoenix import trace_link
    from ragviz.export.traces.rows_file import rows_jsonl

    trace = "0af7651916cd43dd8448eb211c80319c"

    def span(span_id: str, kind: str, start: int, parent: str | None, **attributes) -> Span:
        attrs = {"openinference.span.kind": kind, **attributes}
        return Span(trace, span_id, parent, "rag" if parent is None else "retrieve", kind, start, attrs, "shop")

    docs = {"retrieval.documents.0.document.content": "The sky is blue.", "retrieval.documents.0.document.id": "d0"}
    mapped = map_traces([span("r", "CHAIN", 0, None, **{"input.value": "Sky?", "output.value": "It is blue."}),
                         span("a", "RETRIEVER", 1, "r", **docs)])  # fmt: skip
    assert len(mapped.rows) == 1, mapped.skipped
    rows = app_env["tmp"] / "traces.jsonl"
    rows.write_bytes(rows_jsonl(mapped.rows))
    monkeypatch.setenv("RAGVIZ_PHOENIX_URL", "http://phoenix.example:6006")
    at = open_review()
    assert "Open its trace in Phoenix" not in html_text(at)  # the sample data: no example from a trace
    monkeypatch.setenv("RAGVIZ_DATA", str(rows))
    at = open_review()
    link = trace_link("http://phoenix.example:6006", trace)
    assert f'href="{link}"' in html_text(at) and "Open its trace in Phoenix" in html_text(at)


def test_the_note_on_a_flipped_verdict_and_the_keys_picked_under_the_response(app_env):
    """The selected sentence's controls sit in the response editor (issue 38): the note field exists only for a
    verdict the reviewer flipped and its text replaces the judge's explanation; the keys picker keeps only keys a
    context sentence has (or the labels already name); each change is one decision, stored as the widgets stored it."""
    at = open_review(id="ml-vs-programming")
    controls = response_editor(at)["controls"]
    assert controls["key"] == "c" and controls["status"] == "unsupported" and controls["note"] is None
    assert set(controls["options"]) == {k for doc in text_editor(at)["docs"] for k, _ in doc["s"]}
    edit_sentence(at, "note", "ignored")  # no note field on the judge's verdict: nothing stored
    edit_sentence(at, "verdict", "supported")
    assert response_editor(at)["controls"]["note"] == ""
    assert response_editor(at)["explain"]["by_reviewer"] and response_editor(at)["explain"]["text"] == ""
    edit_sentence(at, "note", "Document 0b states it; <b>checked</b>")
    explain = response_editor(at)["explain"]
    assert explain["text"] == "Document 0b states it; <b>checked</b>"
    assert explain["replaced"].startswith("Neither document compares accuracy")  # the judge's, folded under it
    edit_sentence(at, "keys", ["1b", "9z", 3, "1b"])  # an unknown key, a non-key and a repeat are dropped
    assert supporting(at) == ["1b"] and text_editor(at)["linked"] == ["1b"]
    edit_sentence(at, "keys", [])  # the chip's remove button: the list without it
    assert supporting(at) == [] and text_editor(at)["linked"] == []
    with LabelStore(app_env["db"]) as store:
        assert [
            (v["supported"], v["supporting_keys"], v.get("explanation")) for _, v in store.changes(ML, "tester")
        ] == [
            (True, [], ""),
            (True, [], "Document 0b states it; <b>checked</b>"),
            (True, ["1b"], "Document 0b states it; <b>checked</b>"),
            (True, [], "Document 0b states it; <b>checked</b>"),
        ]


def test_the_bar_rides_in_the_texts_element_unless_something_sits_between_them(app_env):
    """Issue 38: in the single view the navigation bar is the text's element's first part (a J sends one delta for
    both); once something is drawn between them (here the team's guidelines button) the bar is an element of its own
    again, above it, and the text carries no bar."""

    def components(at: AppTest) -> list[dict]:
        return [
            component_data(e.proto)
            for e in at.main.get("bidi_component")  # (the sidebar's is the page list)
        ]

    at = open_review(id="ml-vs-programming")
    drawn = components(at)
    assert [d["kind"] for d in drawn] == ["response"]
    assert [b["id"] for b in drawn[0]["bar"]["buttons"]][:2] == ["prev", "next"]
    press(at, "next")
    assert "Example 2 of 22" in response_editor(at)["bar"]["title"]  # pressed on the bar inside the text
    with LabelStore(app_env["db"]) as store:
        store.team.guidelines.save_guidelines("Mark relevant sentences.", "lead")
    at.run()
    drawn = components(at)
    assert [d["kind"] for d in drawn] == ["toolbar", "response"] and "bar" not in drawn[1]
    assert any(b.label == "Guidelines (v1)" for b in at.button)
    press(at, "next")
    assert "Example 3 of 22" in text_editor(at, "toolbar")["title"]


def test_rejudge_pressed_after_the_role_changed_sends_nothing(app_env, monkeypatch):
    """The bar drew "Re-judge" for an admin; the person is no longer one when they press it (another admin changed
    the roles): nothing is asked of the judge, and the page says why."""
    from ragviz.ui.review.page import REJUDGE_REFUSED

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    at = open_review(id="ml-vs-programming")
    at.session_state["label.model"] = ""  # were the judge asked, it would say its settings are missing
    assert toolbar_button(at, "rejudge") is not None
    monkeypatch.setenv("RAGVIZ_ADMINS", "someone-else")
    press(at, "rejudge")
    assert REJUDGE_REFUSED in [w.value for w in at.warning]
    assert not any("Judge settings" in e.value for e in at.error)
