"""The Review page's logic (ragviz.analysis.review.edits, review_metrics, review_queue) and markup
(ragviz.ui.core.render), without Streamlit running."""

from __future__ import annotations

import html

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragviz.analysis.review.edits import (
    BOTH,
    NEITHER,
    RELEVANT,
    SUPPORTED,
    UNDECIDED,
    UNSUPPORTED,
    UTILIZED,
    accept_changes,
    default_response_key,
    describe_action,
    document_spans,
    note_change,
    response_spans,
    support_change,
    support_value,
    supported_flag,
    supporting_key_options,
    verdict_change,
)
from ragviz.analysis.review.metrics import compare_metrics, describe_change, override_effects
from ragviz.analysis.review.queue import (
    ReviewFilter,
    RowColumns,
    filter_indices,
    link_matches,
    nearest_match,
    neighbours,
    next_unreviewed,
    position_text,
    resume_row,
    review_status,
    step,
)
from ragviz.data.labels import RESET_FIELD, REVIEW_FIELD, REVIEWED, Change, apply_changes, support_field
from ragviz.data.model import Example, Labels, Sentence, SentenceSupport
from ragviz.metrics.trace import example_trace
from ragviz.store.events import without_contradicting_explanations
from ragviz.ui.core import render
from ragviz.ui.review.sentence_panel import explanation_data


def worked_example() -> Example:
    """The RAGBench worked example: 2 documents x 3 sentences, c unsupported."""
    docs = (
        (Sentence("0a", "Intro."), Sentence("0b", "Rules by hand."), Sentence("0c", "Explicit logic.")),
        (Sentence("1a", "ML learns from data."), Sentence("1b", "Patterns emerge."), Sentence("1c", "History.")),
    )
    labels = Labels(
        relevant_keys=("0b", "0c", "1a", "1b"),
        utilized_keys=("0b", "0c", "1a"),
        support=(
            SentenceSupport("a", True, ("0b", "0c"), "stated in 0b"),
            SentenceSupport("b", True, ("1a",), "stated in 1a"),
            SentenceSupport("c", False, (), "not in the documents"),
        ),
    )
    return Example(
        id="ml",
        dataset="demo",
        question="How does ML differ?",
        documents=("", ""),
        document_sentences=docs,
        response="",
        response_sentences=(
            Sentence("a", "Programs use rules."),
            Sentence("b", "ML learns."),
            Sentence("c", "ML is always better."),
        ),
        labels=labels,
        judge_labels=labels,
    )


def test_document_spans_states_and_support_links():
    ex = worked_example()
    spans = document_spans(ex, ex.labels, selected_response_key="a")
    states = {s.key: s.state for doc in spans for s in doc}
    assert states == {"0a": NEITHER, "0b": BOTH, "0c": BOTH, "1a": BOTH, "1b": RELEVANT, "1c": NEITHER}
    assert {s.key for doc in spans for s in doc if s.linked} == {"0b", "0c"}
    utilized_only = document_spans(ex, ex.labels.replace(utilized_keys=("1c",)))
    assert utilized_only[1][2].state == UTILIZED
    assert all(not s.linked for doc in document_spans(ex, ex.labels) for s in doc)


def test_response_spans_follow_the_adherence_rule():
    ex = worked_example()
    assert [s.status for s in response_spans(ex, ex.labels)] == [SUPPORTED, SUPPORTED, UNSUPPORTED]
    # null fully_supported (gpt-4-turbo subsets): unsupported exactly when there are no supporting keys
    nulls = ex.labels.replace(support=(SentenceSupport("a", None, ("0b",)), SentenceSupport("b", None, ())))
    assert [s.status for s in response_spans(ex, nulls)][:3] == [SUPPORTED, UNSUPPORTED, UNDECIDED]
    # the stored unsupported list wins over the per-sentence entries
    stored = ex.labels.replace(unsupported_keys=("a",))
    assert response_spans(ex, stored)[0].status == UNSUPPORTED
    assert [s.status for s in response_spans(ex, None)] == [UNDECIDED] * 3


def test_metric_comparison_after_overrides_matches_the_formulas():
    ex = worked_example()
    current = apply_changes(
        ex.labels,
        [
            ("relevant_keys", ["0b", "0c", "1a", "1b", "0a"]),
            (support_field("c"), support_value(ex.labels, "c", supported=True)),
        ],
    )
    by_name = {m.name: m for m in compare_metrics(ex, ex.labels, current)}
    assert (by_name["relevance"].judge, by_name["relevance"].current) == (4 / 6, 5 / 6)
    assert by_name["completeness"].current == 3 / 5
    assert by_name["adherence"].delta == 1.0
    assert by_name["utilization"].delta == 0.0
    assert by_name["relevance"].formula == "relevance = |R| / N = 5 / 6"
    assert by_name["completeness"].formula == "completeness = |R ∩ U| / |R| = 3 / 5"
    unlabeled = {m.name: m for m in compare_metrics(ex, None, None)}
    assert unlabeled["adherence"].judge is None and unlabeled["adherence"].delta is None


def test_override_effects_sum_to_the_total_delta_and_skip_review_markers():
    ex = worked_example()
    changes = [
        ("relevant_keys", ["0b", "0c", "1a", "1b", "0a"]),
        (REVIEW_FIELD, "reviewed"),
        ("utilized_keys", ["0b", "0c", "1a", "1b"]),
        (support_field("c"), {"supported": True, "supporting_keys": ["1b"], "explanation": ""}),
    ]
    effects = override_effects(ex, ex.labels, changes)
    assert [e.field for e in effects] == ["relevant_keys", "utilized_keys", "support:c"]
    assert effects[0].description == "relevant +0a"
    assert effects[0].deltas["relevance"] == pytest.approx(1 / 6)
    assert effects[2].deltas["adherence"] == 1.0
    final = example_trace(ex, apply_changes(ex.labels, changes))
    start = example_trace(ex)
    for m in ("relevance", "utilization", "completeness", "adherence"):
        assert sum(e.deltas[m] for e in effects) == pytest.approx(getattr(final, m) - getattr(start, m))
    after_reset = override_effects(ex, ex.labels, [*changes, (RESET_FIELD, None)])
    assert after_reset[-1].description == "reset to judge"
    assert after_reset[-1].deltas["adherence"] == -1.0


def test_describe_change_readable():
    ex = worked_example()
    assert describe_change("utilized_keys", ex.labels, ["0b", "1a"]) == "utilized −0c"
    text = describe_change(support_field("c"), ex.labels, {"supported": True, "supporting_keys": ["1b"]})
    assert text == "support c: unsupported → supported (keys: 1b)"


def test_a_click_sets_the_sentences_two_fields_and_keeps_bogus_keys():
    from ragviz.analysis.review.text import click_changes

    ex = worked_example()
    labels = ex.labels.replace(relevant_keys=("0b", "0c", "1a", "1b", "general"))
    changes = {c.field: (c.old, c.new) for c in click_changes(ex, labels, "0a", RELEVANT)}
    assert changes["relevant_keys"] == (list(labels.relevant_keys), ["0b", "0c", "1a", "1b", "general", "0a"])
    # the field the click leaves alone goes along unchanged: the store checks it, writes it not
    assert changes["utilized_keys"] == (["0b", "0c", "1a"], ["0b", "0c", "1a"])
    changes = {c.field: c.new for c in click_changes(ex, labels.replace(utilized_keys=("1a", "1a")), "1a", RELEVANT)}
    assert changes["utilized_keys"] == []  # every copy of the key goes
    # an unlabeled example starts from no labels
    assert [(c.field, c.old, c.new) for c in click_changes(ex, None, "1c", RELEVANT)] == [
        ("relevant_keys", None, ["1c"]),
        ("utilized_keys", None, None),
    ]
    assert click_changes(ex, labels, "9z", RELEVANT) == []  # no such sentence: no change


def test_support_value_keeps_what_is_not_set():
    ex = worked_example()
    assert support_value(ex.labels, "a", supported=False) == {
        "supported": False,
        "supporting_keys": ["0b", "0c"],
        "explanation": "stated in 0b",
    }
    assert support_value(ex.labels, "a", supporting_keys=["1a"])["supported"] is True
    assert support_value(None, "z", supported=None) == {"supported": None, "supporting_keys": [], "explanation": ""}


def test_decisions_the_page_records():
    ex = worked_example()
    # accepting = "the labels as shown are right": only the reviewed marker, never a reset
    assert accept_changes() == [Change(REVIEW_FIELD, None, REVIEWED)]
    assert RESET_FIELD not in [c.field for c in accept_changes()]
    # a support choice: old and new value of the sentence's support field
    marked = support_change(ex.labels, "c", supported=supported_flag(SUPPORTED))
    assert marked.field == support_field("c")
    assert marked.old == {"supported": False, "supporting_keys": [], "explanation": "not in the documents"}
    assert marked.new == {**marked.old, "supported": True}
    assert support_change(ex.labels, "a", supporting_keys=["1a"]).new["supporting_keys"] == ["1a"]
    assert (supported_flag(UNSUPPORTED), supported_flag(None)) == (False, None)
    # a click on a context sentence: both of its fields, the one it changes with the list it replaces
    from ragviz.analysis.review.text import click_changes

    assert click_changes(ex, ex.labels, "0a", RELEVANT) == [
        Change("relevant_keys", ["0b", "0c", "1a", "1b"], ["0b", "0c", "1a", "1b", "0a"]),
        Change("utilized_keys", ["0b", "0c", "1a"], ["0b", "0c", "1a"]),
    ]


def test_default_sentence_and_support_options():
    ex = worked_example()
    assert default_response_key(response_spans(ex, ex.labels)) == "c"  # the first unsupported one
    assert default_response_key(response_spans(ex, ex.labels.replace(support=()))) == "a"
    assert default_response_key([]) is None
    bogus = response_spans(ex, ex.labels.replace(support=(SentenceSupport("a", True, ("0b", "general")),)))[0]
    assert supporting_key_options(ex, bogus) == ["0a", "0b", "0c", "1a", "1b", "1c", "general"]


def columns() -> RowColumns:
    return RowColumns(
        uids=["d/1/m", "d/2/m", "e/3/m", "e/4/m", "e/5/m"],
        subsets=["d", "d", "e", "e", "e"],
        adherence=[1.0, 0.0, None, 0.0, 1.0],
        flag_counts=[0, 2, 0, 0, 1],
    )


def test_filters():
    cols = columns()
    assert filter_indices(cols, ReviewFilter(), set(), set()) == [0, 1, 2, 3, 4]
    assert filter_indices(cols, ReviewFilter(unreviewed=True), {"d/1/m", "e/4/m"}, set()) == [1, 2, 4]
    assert filter_indices(cols, ReviewFilter(corrected=True), set(), {"e/3/m"}) == [2]
    assert filter_indices(cols, ReviewFilter(adherence_zero=True), set(), set()) == [1, 3]
    # the current labels of a corrected example decide, not the judge's
    assert filter_indices(cols, ReviewFilter(adherence_zero=True), set(), set(), {"d/2/m": 1.0, "e/5/m": 0.0}) == [3, 4]
    assert filter_indices(cols, ReviewFilter(has_flags=True), set(), set()) == [1, 4]
    assert filter_indices(cols, ReviewFilter(subsets=("e",), has_flags=True), set(), set()) == [4]


def test_navigation():
    assert step([2, 5, 9], 5, 1) == 9 and step([2, 5, 9], 2, -1) is None
    assert step(range(5), 4, 1) is None and step(range(5), 0, 1) == 1
    uids = ["a", "b", "c", "d"]
    assert next_unreviewed(uids, {"b"}, 0) == 2
    assert next_unreviewed(uids, {"a", "c", "d"}, 2) == 1  # wraps round
    assert next_unreviewed(uids, set(uids), 0) is None
    assert next_unreviewed(uids, {"a"}, 3, allowed=[0, 3]) is None
    assert next_unreviewed(uids, set(), 3, allowed=[0, 1]) == 0


@given(st.lists(st.integers(0, 50), unique=True).map(sorted), st.integers(0, 50), st.sampled_from([1, -1]))
@settings(max_examples=200, deadline=None)
def test_step_is_the_nearest_neighbour(indices, current, direction):
    got = step(indices, current, direction)
    expected = (
        min((i for i in indices if i > current), default=None)
        if direction > 0
        else max((i for i in indices if i < current), default=None)
    )
    assert got == expected


def test_progress_counts_only_loaded_examples():
    from ragviz.analysis.review.queue import Progress
    from ragviz.store.status_cache import count_within

    p = Progress(*count_within(frozenset({"a", "b", "c", "d"}), {"a", "b", "x"}, {"b", "y"}), total=4)
    assert (p.reviewed, p.corrected, p.total, p.fraction) == (2, 1, 4, 0.5)
    assert str(p) == "2 / 4 reviewed (1 corrected)"


def test_position_status_neighbours_and_resume():
    assert neighbours([2, 5, 9], 2, 10) == (None, 5) and neighbours(None, 9, 10) == (8, None)
    assert nearest_match(None, 3) is None and nearest_match([2, 5, 9], 3) == 5
    assert position_text(0, 1234, None) == "Example 1 of 1,234"
    assert position_text(9, 1234, [2, 5, 9]) == "Example 10 of 1,234 · filter: 3 of 3 match"
    assert position_text(0, 22, []) == "Example 1 of 22 · filter: – of 0 match"
    assert [review_status(u, {"a", "b"}, {"b"}) for u in "abc"] == ["reviewed", "corrected", "not reviewed yet"]

    class Rows:
        def index_of(self, uid):
            return {"x": 0, "y": 4}.get(uid)

    assert [resume_row(Rows(), u) for u in ("y", "x", "gone", None)] == [4, 0, 0, 0]


def test_override_effect_rows():
    ex = worked_example()
    (effect,) = override_effects(ex, ex.labels, [("relevant_keys", ["0b", "0c", "1a", "1b", "0a"])])
    row = effect.as_row()
    assert list(row)[:2] == ["step", "change"] and (row["step"], row["change"]) == (1, "relevant +0a")
    assert row["Δ relevance"] == pytest.approx(1 / 6) and row["Δ adherence"] == 0.0


HOSTILE = '<img src=x onerror=alert(1)> **bold** $5 and $6 <script>alert(1)</script> "quoted" & co'


def test_render_escapes_every_data_text():
    ex = worked_example()
    docs = ((Sentence("0a", HOSTILE),),)
    hostile = Example(
        id="x",
        dataset="d",
        question=HOSTILE,
        documents=(HOSTILE,),
        document_sentences=docs,
        response=HOSTILE,
        response_sentences=(Sentence("a", HOSTILE),),
        labels=Labels(("0a",), (), (SentenceSupport("a", True, ("0a",), HOSTILE),)),
    )
    spans = document_spans(hostile, hostile.labels, "a")
    out = render.document_html(0, spans[0]) + render.response_html(response_spans(hostile, hostile.labels, "a"))
    out += render.text_block_html("Q", HOSTILE)
    out += render.problems_html([HOSTILE])
    assert "<img" not in out and "<script" not in out
    assert html.escape(HOSTILE, quote=True) in out
    assert "**bold**" in out and "$5 and $6" in out
    assert ex is not None


def test_render_marks_every_state_with_text_and_key():
    ex = worked_example()
    out = render.document_html(0, document_spans(ex, ex.labels, "a")[0])
    for key, marker in (("0a", "·"), ("0b", "R+U"), ("0c", "R+U")):
        assert f'data-key="{key}"' in out and f"{key} {marker}" in out
    assert out.count("rv-linked") == 2
    legend = render.legend_html()
    for text in (
        "relevant and utilized",
        "relevant, not utilized",
        "utilized, not relevant",
        "neither",
        "supported",
        "unsupported",
    ):
        assert text in legend
    assert (
        render.format_score(None) == "—" and render.format_delta(0.0) is None and render.format_delta(1 / 6) == "+0.167"
    )


def test_a_click_on_a_context_sentence_goes_round_the_four_labels_in_one_direct_change():
    """Four clicks on one sentence: none -> relevant -> relevant+utilized -> utilized -> none, each
    one change of one field with the value it replaces (the other field along, unchanged)."""
    from ragviz.analysis.review.text import CYCLE, click_changes, next_state

    ex = worked_example()
    labels, state, seen = ex.labels, NEITHER, []
    for _ in CYCLE:
        state = next_state(state)
        changes = [c for c in click_changes(ex, labels, "0a", state) if c.old != c.new]
        assert len(changes) == 1 and changes[0].old == list(getattr(labels, changes[0].field))
        labels = apply_changes(labels, [(c.field, c.new) for c in changes])
        seen.append(document_spans(ex, labels)[0][0].state)
    assert seen == [RELEVANT, BOTH, UTILIZED, NEITHER]
    assert labels.relevant_keys == ex.labels.relevant_keys and labels.utilized_keys == ex.labels.utilized_keys
    with pytest.raises(ValueError):
        next_state("maybe")


def test_documents_fold_to_their_kept_sentences_with_two_around():
    from ragviz.analysis.review.text import fold_ranges

    kept = [False] * 100
    kept[10] = kept[12] = kept[50] = True
    assert fold_ranges(kept) == [(8, 15), (48, 53)]
    assert fold_ranges([False] * 100) == []  # nothing kept: the heading and "show all" only
    assert fold_ranges([False, False]) == [(0, 2)]  # a short document shows whole
    assert fold_ranges([True] + [False] * 9) == [(0, 3)]
    assert fold_ranges([False] * 9 + [True]) == [(7, 10)]
    assert fold_ranges(kept, around=1) == [(9, 14), (49, 52)]


def test_the_text_editor_sets_text_only_as_text():
    """The Review page's text editor (ragviz/ui/review/sentence_editor/editor.js) builds every node from
    data with textContent / setAttribute: no HTML parsing API appears in it at all."""
    from pathlib import Path

    js = (Path(render.__file__).parents[1] / "review" / "sentence_editor" / "editor.js").read_text(encoding="utf-8")
    for api in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "createContextualFragment", "eval("):
        assert api not in js, api
    assert "textContent" in js


def test_shift_click_links_a_context_sentence_as_support_like_the_picker():
    from ragviz.analysis.review.text import support_link_change

    ex = worked_example()
    change = support_link_change(ex.labels, "a", "1b", linked=True)
    assert change == support_change(ex.labels, "a", supporting_keys=["0b", "0c", "1b"])
    assert change.new["supported"] is True and change.new["explanation"] == "stated in 0b"
    assert support_link_change(ex.labels, "a", "0b", linked=False).new["supporting_keys"] == ["0c"]
    assert support_link_change(None, "a", "0a", linked=True).new["supporting_keys"] == ["0a"]


def test_a_flipped_verdict_carries_the_reviewers_note_and_flipping_back_brings_the_judges_text_back():
    ex = worked_example()
    judge = ex.labels
    flipped = verdict_change(judge, judge, "c", True, note="  0b says so  ")
    assert flipped.old == {"supported": False, "supporting_keys": [], "explanation": "not in the documents"}
    assert flipped.new == {"supported": True, "supporting_keys": [], "explanation": "0b says so"}
    now = apply_changes(judge, [(flipped.field, flipped.new)])
    assert verdict_change(judge, judge, "c", True).new["explanation"] == ""  # no note: no judge text either
    spans = {s.key: s for s in response_spans(ex, now, "c", judge)}
    assert spans["c"].by_reviewer and spans["c"].explanation == "0b says so"
    assert spans["c"].replaced == "not in the documents" and not spans["a"].by_reviewer
    shown = explanation_data(spans["c"])  # what the response editor draws (textContent) for the selected sentence
    assert shown["by_reviewer"] and shown["text"] == "0b says so"
    assert shown["replaced"] == "not in the documents"  # the judge's text, folded under the note
    # a note written afterwards replaces the explanation only
    noted = note_change(now, "c", "see 0b")
    assert noted.new == {"supported": True, "supporting_keys": [], "explanation": "see 0b"}
    # back to the judge's verdict: the judge's explanation again, the same value as at the start
    back = verdict_change(now, judge, "c", False)
    assert back.new == flipped.old
    # the response's overall verdict follows its sentences once one is flipped; its explanation goes
    overall = judge.replace(overall_supported=False, overall_supported_explanation="c is unsupported")
    after = apply_changes(overall, [(flipped.field, flipped.new)])
    assert after.overall_supported is True and after.overall_supported_explanation == ""
    same = apply_changes(overall, [(support_field("a"), {"supported": True, "supporting_keys": ["0b"]})])
    assert same.overall_supported is False and same.overall_supported_explanation == "c is unsupported"


def test_actions_described_for_the_undo_hint():
    assert describe_action("edit", [("relevant_keys", ["0a", "0b"], ["0a"])]) == "not relevant 0b"
    assert describe_action("edit", [("utilized_keys", [], ["1a", "0c"])]) == "utilized 0c, utilized 1a"
    sup = {"supported": True, "supporting_keys": [], "explanation": ""}
    assert describe_action("edit", [("support:c", {**sup, "supported": False}, sup)]) == "supported c"
    assert describe_action("edit", [("support:c", sup, {**sup, "supporting_keys": ["1b"]})]) == "support keys of c"
    assert describe_action("edit", [("support:c", sup, {**sup, "explanation": "x"})]) == "note on c"
    assert describe_action("accept", [("review", None, "reviewed")]) == "accept"
    assert describe_action("reset", [("reset", None, None)]) == "reset to judge"
    assert describe_action("edit", [("answer_similarity", None, 4.0)]) == "answer similarity"
    many = describe_action("edit", [("relevant_keys", [], [f"{d}{c}" for d in range(9) for c in "abc"])])
    assert len(many) <= 60 and many.endswith("…")


class _Rows:
    """The columns of a Dataset that link_matches reads."""

    def __init__(self, rows: list[tuple[str, str, str]]):
        self.datasets = [d for d, _, _ in rows]
        self.ids = [i for _, i, _ in rows]
        self.generation_models = [m for _, _, m in rows]
        self.uids = [f"{d}/{i}/{m}" for d, i, m in rows]

    def index_of(self, uid: str) -> int | None:
        return self.uids.index(uid) if uid in self.uids else None

    def indices_of_id(self, example_id: str) -> list[int]:
        return [n for n, i in enumerate(self.ids) if i == example_id]


def test_a_deep_link_names_every_match_and_dataset_and_model_narrow_it():
    ds = _Rows([("a", "x", "m1"), ("a", "x", "m2"), ("b", "x", "m1"), ("b", "y", "m1")])
    assert link_matches(ds, example_id="x") == [0, 1, 2]  # the page lists them; none opens silently
    assert link_matches(ds, example_id="x", subset="a") == [0, 1]
    assert link_matches(ds, example_id="x", model="m1") == [0, 2]
    assert link_matches(ds, example_id="x", subset="b", model="m1") == [2]
    assert link_matches(ds, example_id="y") == [3]
    assert link_matches(ds, uid="a/x/m2", example_id="x") == [1]  # a uid is exact
    assert link_matches(ds, example_id="x", subset="c") == [] and link_matches(ds) == []


def test_a_flip_stored_with_the_judges_text_is_shown_without_it():
    """A flip recorded before flips took a note kept the judge's explanation for the other verdict:
    it is not shown (nor exported) as the reason for the new verdict."""
    ex = worked_example()
    judge = ex.labels
    legacy = apply_changes(judge, [(support_field("c"), {"supported": True, "explanation": "not in the documents"})])
    cleaned = without_contradicting_explanations(legacy, judge)
    assert cleaned.support_for("c").explanation == "" and cleaned.support_for("a").explanation == "stated in 0b"
    assert without_contradicting_explanations(judge, judge) is judge
    span = next(s for s in response_spans(ex, legacy, "c", judge) if s.key == "c")
    assert span.by_reviewer and span.explanation == "" and span.replaced == "not in the documents"


def test_the_review_header_reaches_the_browser_as_text_nodes_under_an_allowlist():
    """The header the response editor draws (ragviz.ui.review.header, issue 38): a hostile question and id stay
    text (strings of the tree, escaped again when written back as HTML), a tag or attribute outside the allowlist is
    refused or dropped, and the editor's script builds the same tags only."""
    import dataclasses
    import re
    from pathlib import Path

    from ragviz.ui.review.header import TAGS, markup_tree, tree_html
    from ragviz.ui.review.page import example_header_html

    hostile = '<img src=x onerror=alert(1)> **b** "q" & <script>alert(1)</script>'
    ex = dataclasses.replace(worked_example(), id=hostile, question=hostile)
    tree = markup_tree(example_header_html("Example 1 of 2", "reviewed", ex))

    def texts(node):
        return [node] if isinstance(node, str) else [t for child in node[2:] for t in texts(child)]

    def tags(node):
        return set() if isinstance(node, str) else {node[0]} | {t for child in node[2:] for t in tags(child)}

    assert hostile in texts(tree)  # the question: one text node, as the person wrote it
    assert tags(tree) <= TAGS and "img" not in tags(tree) and "script" not in tags(tree)
    assert "<script" not in tree_html(tree) and "&lt;script&gt;" in tree_html(tree)
    assert markup_tree('<span onclick="x()" data-k="1" href="y">a</span>') == [
        "div",
        {},
        ["span", {"data-k": "1"}, "a"],
    ]
    for bad in ("<script>x</script>", '<a href="x">y</a>', "<div>open"):
        with pytest.raises(ValueError):
            markup_tree(bad)
    js = (Path(render.__file__).parents[1] / "review" / "sentence_editor" / "editor.js").read_text(encoding="utf-8")
    drawn = re.search(r"const HEAD_TAGS = new Set\(\[([^\]]*)\]\)", js)
    assert drawn is not None and set(re.findall(r'"(\w+)"', drawn.group(1))) == set(TAGS)


def _parsed(markup: str) -> list:
    """*markup*'s tree as ``html.parser`` reads it (the header's reader, without its quick path)."""
    from ragviz.ui.review.header import _Reader

    reader = _Reader()
    reader.feed(markup)
    reader.close()
    return reader.root


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=40), status=st.sampled_from(["", "reviewed", "changed"]))
def test_the_header_is_read_by_its_quick_path_as_html_parser_reads_it(text, status):
    """Issue 38: the header's markup is read by one regular expression (a third of html.parser's cost per J); the
    tree is html.parser's, whatever the data's texts, and markup the quick path does not know goes to html.parser."""
    import dataclasses

    from ragviz.analysis.quality.issues import label_issues
    from ragviz.ui.review.header import _quick_tree, markup_tree
    from ragviz.ui.review.page import example_header_html, metric_cards_html, quality_flags_html

    ex = dataclasses.replace(worked_example(), id=text or "x", question=text, dataset=text)
    judge = ex.labels
    cards = metric_cards_html(compare_metrics(ex, judge, judge))
    flags = quality_flags_html(label_issues(ex, judge) if judge else [])
    for markup in (example_header_html(f"Example 1 of {text}", status, ex, cards, flags), render.legend_html()):
        quick = _quick_tree(markup)
        assert quick is not None and quick == _parsed(markup) == markup_tree(markup)
    for other in ("<b class='x'>a</b>", "a<!-- c -->b", "<DIV>x</DIV>", '<span title = "t">x</span>', "1 < 2 &amp"):
        assert _quick_tree(other) is None and markup_tree(other) == _parsed(other)
