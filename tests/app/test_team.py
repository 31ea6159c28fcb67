"""The Team page, the Review page's assignment queue and guidelines panel, and the blind Compare page, under AppTest
with a real store: what a lead and an annotator see and do."""

from __future__ import annotations

from ragviz.analysis.team.dashboard import team_figures
from ragviz.analysis.team.gold import team_round
from ragviz.analysis.team.table import round_table
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, open_queue, press, queue_buttons
from tests.sample import SAMPLE_JSONL

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def _frame(at, column):
    return next(df.value for df in at.dataframe if column in df.value.columns)


def _tab(at, name: str):
    """Open a tab of the Team page (its tabs run lazily: only the open one draws)."""
    at.session_state["team.tab"] = name
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _round(db) -> tuple:
    ds = load([SAMPLE_JSONL]).dataset
    ex = ds.example(ds.index_of(ML))
    keys = list(ex.labels.relevant_keys)
    with LabelStore(db) as store:
        store.team.assignments.assign([ds.uids[i] for i in range(4)], 2, ["alice", "bob"], "tester")
        store.record(ML, "alice", [Change("review", None, "reviewed")])
        store.record(ML, "bob", [Change("relevant_keys", keys, [k for k in keys if k != "1b"])])
    return ds, ex


def test_team_page_shows_progress_the_kappa_matrix_and_settles_a_difference(app_env):
    at = open_page("pages/team.py")
    assert any("No assignments among the loaded examples" in c.value for c in at.caption)
    ds, ex = _round(app_env["db"])
    at = open_page("pages/team.py")
    people = _frame(at, "Assigned")
    assert people.set_index("Annotator")[["Assigned", "Done", "Open"]].to_dict("index") == {
        "alice": {"Assigned": 4, "Done": 1, "Open": 3},
        "bob": {"Assigned": 4, "Done": 1, "Open": 3},
    }
    assert not any("Done by" in df.value.columns for df in at.dataframe)  # built only when asked
    at.toggle(key="team.per_example").set_value(True).run()
    per_example = _frame(at, "Done by")
    assert per_example.set_index("Example").loc[ML, "Done"] == "2/2"
    assert per_example.set_index("Example").loc[ML, "State"] == "to adjudicate"
    # the kappa matrix and Fleiss' kappa moved here from the Dashboard
    _tab(at, "Annotators")
    fleiss = next(df.value for df in at.dataframe if "Fleiss' κ" in df.value.columns)
    assert fleiss[fleiss["label"] == "relevant"].iloc[0]["Fleiss' κ"] == f"{46 / 70:.3f}"
    assert sum("kappa_text" in c.proto.spec for c in at.get("vega_lite_chart")) == 1
    alpha = next(df.value for df in at.dataframe if "α" in df.value.columns)
    assert set(alpha["Label"]) == {"relevant", "utilized", "supported"}
    assert set(_frame(at, "Median s / example")["Annotator"]) >= {"bob"}
    agreement = _frame(at, "= others").set_index(["Annotator", "Label kind"])
    # one example compared: the share says it is too few to read as agreement in general
    assert agreement.loc[("bob", "relevant"), "= others"] == f"{5 / 6:.0%}, too few reviewed to say (1 of 10)"

    # the adjudication view: the one difference, settled for bob's side
    _tab(at, "Adjudication")
    html = "".join(h.proto.body for h in at.get("html"))
    assert 'data-differences="1"' in html and "rv-adj-diff" in html
    radio = next(r for r in at.radio if r.label == "relevant · sentence 1b")
    radio.set_value(next(o for o in radio.options if o.startswith("not relevant")))
    next(b for b in at.button if b.label == "Settle").click().run()
    assert not at.exception
    with LabelStore(app_env["db"]) as store:
        (s,) = store.team.adjudications.settlements().values()
        assert s.adjudicator == "tester" and "1b" not in s.settled["relevant_keys"]
        gold = team_round(ds, store)[ML].gold
        assert gold is not None and gold.source == "adjudicated"
    assert any("Nothing to adjudicate" in m.value for m in at.success)
    at.button(key="team.adj_undo").click().run()  # undo works as elsewhere: the example is back in the queue
    with LabelStore(app_env["db"]) as store:
        assert store.team.adjudications.settlements() == {}
    assert 'data-differences="1"' in "".join(h.proto.body for h in at.get("html"))


def test_a_pairs_kappa_from_too_few_shared_examples_is_not_shown(app_env):
    """alice and bob share one decided example: Cohen's κ of one example was drawn in the matrix like any other;
    now its cell and the pair table say too few, with the shared count against the minimum of 10."""
    _round(app_env["db"])
    at = _tab(open_page("pages/team.py"), "Annotators")
    assert any(c.value.startswith("A pair that shared fewer than 10 examples gets no κ") for c in at.caption)
    (chart,) = [c for c in at.get("vega_lite_chart") if "kappa_text" in c.proto.spec]
    assert "too few" in str(chart.proto) and "n=1 of 10" in str(chart.proto)  # the cells' data (Arrow)
    pairs = _frame(at, "annotator A")
    assert set(pairs["state"]) == {"too few reviewed to say (1 of 10)"}
    assert pairs["Cohen's κ"].isna().all()


def test_a_stale_settlement_is_refused_with_a_message(app_env):
    ds, ex = _round(app_env["db"])
    at = _tab(open_page("pages/team.py"), "Adjudication")
    keys = list(ex.labels.relevant_keys)
    with LabelStore(app_env["db"]) as store:  # bob changes his mind after the page was drawn
        store.record(
            ML,
            "bob",
            [Change("relevant_keys", [k for k in keys if k != "1b"], [k for k in keys if k not in ("1b", "1a")])],
        )
    radio = next(r for r in at.radio if r.label == "relevant · sentence 1b")
    radio.set_value(radio.options[0])
    next(b for b in at.button if b.label == "Settle").click().run()
    assert any("Not settled" in m.value and "changed since it was shown" in m.value for m in at.info)
    with LabelStore(app_env["db"]) as store:
        assert store.team.adjudications.settlements() == {}


def test_review_walks_my_assignments_and_shows_the_guidelines_safely(app_env):
    ds = load([SAMPLE_JSONL]).dataset
    with LabelStore(app_env["db"]) as store:
        store.team.assignments.assign([ds.uids[5], ds.uids[9]], 1, ["tester"], "tester")
        store.team.guidelines.save_guidelines(
            "# Relevance\nMark **relevant** sentences. Costs $5. <img src=x onerror=alert(1)>", "lead"
        )
    at = open_queue(open_page("pages/review.py"))  # "My assignments" is drawn while the Queue is open
    toggle = next(t for t in at.toggle if t.label.startswith("My assignments"))
    assert toggle.label == "My assignments (2 open of 2)" and toggle.value
    assert at.session_state["review.index"] == 5  # the first assigned example
    press(at, "accept")
    assert at.session_state["review.index"] == 9  # Accept moves to the next open assignment, not to row 6
    assert next(t for t in at.toggle if t.label.startswith("My assignments")).label == "My assignments (1 open of 2)"
    assert queue_buttons(at) == [
        "Queue: my assignments, 1 open · no filters · Accept → next unreviewed"
    ]  # said outside
    next(t for t in at.toggle if t.label.startswith("My assignments")).set_value(False).run()
    assert queue_buttons(at) == ["Queue: all examples · no filters · Accept → next unreviewed"]
    button = next(b for b in at.button if b.label.startswith("Guidelines"))
    assert button.label == "Guidelines (v1)"
    button.click().run()
    shown = [m.value for m in at.markdown if "Relevance" in m.value]
    assert shown and "\\$5" in shown[0]


def test_compare_is_blind_for_an_annotator_during_a_round(app_env, monkeypatch):
    _round(app_env["db"])
    monkeypatch.setenv("RAGVIZ_ADMINS", "lead")  # tester is an annotator now
    at = open_page("pages/compare.py")
    assert any("A blind labelling round is on" in c.value for c in at.caption)
    options = set(at.selectbox[0].options) | set(at.selectbox[1].options)
    assert "alice" not in options and "bob" not in options and "human" not in options
    dashboard = open_page("pages/dashboard.py")  # the Dashboard's "current labels" picker too
    against = next(s for s in dashboard.selectbox if s.label.startswith("Current labels"))
    assert set(against.options) == {"tester"}  # her own; gold once every assignment is decided


def test_a_large_round_shows_every_figure_counted_on_columns(app_env, monkeypatch):
    """Issue 38: the Team page showed "—" above 5,000 examples until a tab compared everyone's labels; the round
    is now counted on the data's columns (here from the first example, as at 100,000) on the first render."""
    from ragviz.analysis.team import table

    monkeypatch.setattr(table, "COLUMNS_FROM", 1)
    _round(app_env["db"])
    at = open_page("pages/team.py")
    ds = load([SAMPLE_JSONL]).dataset
    with LabelStore(app_env["db"]) as store:
        assert round_table(ds, store).on_columns.any()  # some examples were counted on columns
        one_by_one = team_figures(team_round(ds, store), {})
    shown = {m.label: m.value for m in at.metric}
    assert shown["Gold: agreed"] == f"{one_by_one.n_agreed:,}" and "—" not in shown.values()
    assert shown["Waiting for an adjudicator"] == f"{one_by_one.n_waiting:,}"
    at = _tab(at, "Adjudication")
    html = "".join(h.proto.body for h in at.get("html"))
    assert 'data-differences="1"' in html  # ML: the one example with a label change, shown
    assert any("1 of 1 in the queue" in m.value for m in at.markdown)


def test_with_one_annotator_per_example_gold_is_not_called_agreed(app_env):
    """Issue 40: the Team page said "Gold: agreed 6" where each example had one annotator, who agreed with no one."""
    ds = load([SAMPLE_JSONL]).dataset
    with LabelStore(app_env["db"]) as store:
        store.team.assignments.assign([ds.uids[i] for i in range(4)], 1, ["alice"], "tester")
        for i in range(2):
            store.record(ds.uids[i], "alice", [Change("review", None, "reviewed")])
    labels = {m.label: m.value for m in open_page("pages/team.py").metric}
    assert "Gold: agreed" not in labels and labels["Gold: one annotator's labels"] == "2"
    with LabelStore(app_env["db"]) as store:
        store.team.assignments.assign([ds.uids[i] for i in range(4, 8)], 2, ["alice", "bob"], "tester")
    assert "Gold: agreed" in {m.label for m in open_page("pages/team.py").metric}
