"""Explainer page under AppTest: formulas filled with the keys they count, judge next to human,
Venn, escaping; presentation mode on Review."""

from __future__ import annotations

import html
import re

from streamlit.testing.v1 import AppTest

from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.metrics.trace import example_trace
from ragviz.store.label_store import LabelStore
from ragviz.ui.explainer.html import formula_terms, venn_svg
from tests.apptest_helpers import click_sentence, open_page, response_editor, shown, text_editor, theme_element
from tests.sample import SAMPLE_DATA

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def cards(at: AppTest) -> list[str]:
    return [h.value for h in at.get("html") if "rv-formula-card" in h.value]


def ml_example():
    ds = load([SAMPLE_DATA]).dataset
    return ds.example(ds.index_of(ML))


def test_formula_terms_name_the_counted_keys():
    ex = ml_example()
    terms = {t.metric: t for t in formula_terms(ex, ex.labels)}
    scores = example_trace(ex)
    assert terms["relevance"].value == scores.relevance
    assert terms["relevance"].numerator == ex.labels.relevant_keys
    assert terms["relevance"].denominator == tuple(ex.context_keys())
    assert len(terms["relevance"].numerator) / len(terms["relevance"].denominator) == scores.relevance
    assert terms["completeness"].denominator == ex.labels.relevant_keys
    assert terms["adherence"].denominator == tuple(ex.response_keys())


def test_venn_counts_and_escapes():
    svg = venn_svg({"0a", "0b", "1a"}, {"0b", "<x>"}, 10, title="<b>judge</b>")
    assert "&lt;x&gt;" in svg and "<x>" not in svg and "&lt;b&gt;judge" in svg
    assert "neither: 6 of 10 sentences" in svg


def test_venn_lists_keys_in_document_order():
    """Document, then sentence (spreadsheet-column letters: a..z, aa..), as the Review page shows the sentences:
    ``2d 2aa``, not ``2aa 2d``; ``1z`` before ``10b``."""
    svg = venn_svg({"2aa", "2a", "10b", "1z", "2d"}, {"2d", "2aa", "0c"}, 40)
    assert re.findall(r'font-family="monospace">([^<]*)</text>', svg) == ["1z 2a 10b", "2d 2aa", "0c"]


def test_formula_cards_list_keys_in_document_order():
    """A person's key list is in the order they clicked (``1b 0c 0b``): the card shows the sentences' order."""
    import dataclasses

    from ragviz.ui.explainer.html import formula_html

    ex = ml_example()
    term = next(t for t in formula_terms(ex, ex.labels) if t.metric == "relevance")
    card = formula_html(dataclasses.replace(term, numerator=("1b", "0c", "0b")))
    numerator = card.split("<b>numerator</b>")[1].split("</div>")[0]
    assert re.findall(r">([0-9a-z]+)</span>", numerator) == ["0b", "0c", "1b"]


def test_the_adherence_card_reads_as_a_rule_then_the_count():
    """``adherence = 0 if any response sentence is unsupported, else 1: 1 unsupported of 3 → 0.000`` (it said "else 1 =
    1 unsupported of 3", an equation that is false as written)."""
    from ragviz.ui.explainer.html import formula_html

    ex = ml_example()
    card = formula_html(next(t for t in formula_terms(ex, ex.labels) if t.metric == "adherence"))
    assert "else 1: <span" in card and "else 1 =" not in card


def test_explainer_shows_judge_and_human_formulas(app_env):
    ex = ml_example()
    at = open_page("pages/explainer.py", uid=ML)
    assert [shown(s.value) for s in at.subheader][:2] == [
        "Judge said",
        "Human said (nobody has reviewed this example: judge's labels)",
    ]
    judge_cards = cards(at)
    assert len(judge_cards) == 8  # four metrics, judge and human
    n, r = ex.n_context_sentences, len(ex.labels.relevant_keys)
    relevance = judge_cards[0]
    assert f"{r} / {n} = {example_trace(ex).relevance:.3f}" in relevance
    for key in ex.labels.relevant_keys:
        assert f">{html.escape(key)}</span>" in relevance
    assert sum("rv-venn" in h.value for h in at.get("html")) == 2

    # the annotator removes one relevant key: the human side shows one fewer, with the change
    removed = ex.labels.relevant_keys[0]
    with LabelStore(app_env["db"]) as store:
        store.record(
            ML,
            "tester",
            [
                Change(
                    "relevant_keys", list(ex.labels.relevant_keys), [k for k in ex.labels.relevant_keys if k != removed]
                )
            ],
        )
    at = open_page("pages/explainer.py", uid=ML)
    assert shown(at.subheader[1].value) == "Human said (tester)"
    human_relevance = cards(at)[4]  # the judge column's four cards come first
    assert f"{r - 1} / {n} = {(r - 1) / n:.3f}" in human_relevance
    assert f"{-1 / n:+.3f}" in human_relevance
    assert [link.proto.query_string for link in at.get("page_link")] == [
        "uid=techqa_sample%2Fml-vs-programming%2Fgpt-4o-mini"
    ]


def test_explainer_picks_examples_and_presentation_hides_review_link(app_env):
    at = open_page("pages/explainer.py")
    first = at.selectbox(key="explainer.index")
    assert first.value == 0
    first.set_value(3).run()
    assert not at.exception
    ds = load([SAMPLE_DATA]).dataset
    assert at.query_params["uid"] == [ds.uids[3]] or at.query_params["uid"] == ds.uids[3]
    at = open_page("pages/explainer.py", uid=ML, present="1")
    assert not at.get("page_link")


def test_every_data_text_is_escaped(app_env):
    at = open_page("pages/explainer.py")
    ds = load([SAMPLE_DATA]).dataset
    seen_escaped = False
    for i in range(len(ds)):
        at.selectbox(key="explainer.index").set_value(i).run()
        assert not at.exception
        markup = "\n".join(h.value for h in at.get("html") if h.value != theme_element()).lower()  # app.py's, constant
        markup = re.sub(r'<img class="rv-venn" src="data:image/svg\+xml;base64,[a-z0-9+/=]+"', "", markup)  # the venns
        assert "<script" not in markup and "<img" not in markup
        seen_escaped |= "&lt;img" in markup
    assert seen_escaped  # the sample's hostile text is shown, as text


def test_presentation_mode_on_review_hides_editing_and_records_nothing(app_env):
    at = open_page("pages/review.py", uid=ML, present="1")
    style = next(h.value for h in at.get("html") if h.value.startswith("<style>"))
    assert ".st-key-review-advance" in style  # a second guard over the one editing widget (Accept's advance toggle)
    assert any("Presentation mode" in c.value for c in at.caption)
    editing = ("review.accept", "review.undo", "review.reset", "review.next_unreviewed", "review.normalize")
    assert not [b.key for b in at.button if b.key in editing]  # not drawn: no button, no shortcut
    assert [b["id"] for b in text_editor(at, "toolbar")["buttons"]] == ["prev", "next"]  # the bar: moves only
    assert text_editor(at, "toolbar")["hint"] is None  # and no "Z: undo ..." line
    assert response_editor(at)["explain"] and not response_editor(at)["controls"]  # no verdict, note or keys control
    assert not at.data_editor
    assert text_editor(at)["editable"] is False  # the text is shown, clicks on it edit nothing
    click_sentence(at, "0a")  # even a click that reached the server: nothing is recorded
    assert "0a" not in text_editor(at)["states"]
    with LabelStore(app_env["db"]) as store:
        assert store.n_events() == 0
    at.query_params["present"] = "0"
    at.run()
    assert not [h for h in at.get("html") if h.value.startswith("<style>")]


def test_more_than_two_systems_are_picked_on_the_dashboard_not_with_a_cli_flag(app_env, monkeypatch, tmp_path):
    """Three generation models answer the questions: the plain-words box said "name the two to compare (--compare A
    B)", a command-line option nobody on this page can give; it says where to pick them."""
    import json

    import pyarrow.parquet as pq

    from tests.ragbench_data import require_ragbench, shard

    require_ragbench()
    rows = [*pq.read_table(shard("covidqa")).to_pylist()[:40], *pq.read_table(shard("delucionqa")).to_pylist()]
    data = tmp_path / "three_systems.jsonl"
    data.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
    assert len({r["generation_model_name"] for r in rows}) == 3
    monkeypatch.setenv("RAGVIZ_DATA", str(data))
    at = open_page("pages/explainer.py")
    said = " ".join(c.value for c in at.caption)
    assert "3 systems answer the loaded questions: pick the two to compare on the Dashboard" in said
    assert "--compare" not in said
    assert "Open the Dashboard" in [p.proto.label for p in at.get("page_link")]
