"""The Dashboard's "What people would say" panel and the Explainer's plain words under AppTest (real SQLite
store): the figures are the core functions' (pair_store + estimate_report), escaped, with the excluded
reviews named; without a sample the panel says how to get one."""

from __future__ import annotations

from pathlib import Path

from ragviz.analysis.estimates.pairing import member_rows, pair_store
from ragviz.analysis.estimates.report import estimate_report, plain_words
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import html_blocks, open_page, open_queue, press
from tests.sample import SAMPLE_DATA


def _audit(db: Path, size: int = 10, reviewed: int = 7) -> tuple:
    """A sample of *size*, the first *reviewed* members (by row) reviewed by tester (every other one with
    no relevant sentence left), and one example outside it reviewed too. Returns (dataset, sample)."""
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(db) as store:
        sample = store.audits.draw_sample(ds.uids, size, "lead <b>", seed=4)
        rows = member_rows(ds, sample.members)
        outside = next(i for i in range(len(ds)) if ds.uids[i] not in sample.members)
        for k, i in enumerate([*rows[:reviewed], outside]):
            ex = ds.example(i)
            changes = [Change(REVIEW_FIELD, None, REVIEWED)]
            if k % 2:
                old = field_value(store.current_labels(ex, "tester"), "relevant_keys")
                changes.insert(0, Change("relevant_keys", old, []))
            store.record(ex.uid, "tester", changes, example=ex)
    return ds, sample


def test_dashboard_panel_shows_the_core_estimates(app_env):
    ds, sample = _audit(app_env["db"])
    with LabelStore(app_env["db"]) as store:
        report = estimate_report(pair_store(ds, store, sample.members))
    at = open_page("pages/dashboard.py")
    assert "What people would say" in [h.value for h in at.header]
    captions = " ".join(c.value for c in at.caption)
    assert "7 reviewed members are the audit" in captions
    assert "PPI\\+\\+, bootstrap\\-t" in captions  # the interval method is named (Markdown-escaped), and any fallback
    assert "lead \\<b\\>" in captions or "lead &lt;b&gt;" in captions  # the drawer's name is escaped
    page_html = " ".join(h.proto.body for h in at.get("html"))
    assert "1 reviewed examples are outside the audit sample and not in the estimate" in page_html
    assert "not a random sample" in page_html
    notes = next(h.proto.body for h in at.get("html") if "not a random sample" in h.proto.body)
    assert (
        "monospace" not in notes
    )  # sentences for a reader, in the page's font (issue 29: warning boxes were monospace)
    assert "Too few reviewed to correct yet: 93 more needed" in page_html
    table = next(df.value for df in at.dataframe if "corrected 95% CI" in df.value.columns)
    for _, row in table.iterrows():
        m = report.overall.metrics[row["metric"]]
        assert row["audited n"] == m.n_labeled
        assert row["corrected"] == m.ppi.estimate and row["judge only"] == m.judge
        assert row["people only"] == m.human.estimate and row["lambda"] == m.ppi.lam
        assert row["corrected 95% CI"] == f"{m.ppi.low:.3f} – {m.ppi.high:.3f}"
    relevance = report.overall.metrics["relevance"]
    assert relevance.human.estimate < relevance.judge  # people removed relevant keys on half the audit
    planner = [m.value for m in at.markdown if m.value.replace("\\", "").startswith("±0.02 on adherence")]
    assert len(planner) == 1

    at.toggle(key="audit.by_subset").set_value(True).run()
    assert not at.exception
    subsets = next(df.value for df in at.dataframe if "subset" in df.value.columns)
    assert set(subsets["subset"]) <= set(ds.subset_names) | {"ALL"} and len(subsets) > 4


def test_dashboard_without_a_sample_says_how_to_get_one(app_env):
    at = open_page("pages/dashboard.py")
    assert any("No audit sample for the loaded data yet" in c.value for c in at.caption)


def test_explainer_says_it_in_plain_words(app_env):
    ds, sample = _audit(app_env["db"])
    with LabelStore(app_env["db"]) as store:
        report = estimate_report(pair_store(ds, store, sample.members))
    at = open_page("pages/explainer.py")
    text = " ".join(m.value for m in at.markdown)
    expected = plain_words("adherence", report.overall.metrics["adherence"])
    assert expected is not None and expected.startswith("The judge says ")
    n = report.overall.metrics["adherence"].n_labeled
    assert f"too few reviewed to correct yet: {100 - n} more needed ({n} reviewed answers" in expected and n >= 6
    assert expected in text.replace("\\", "")


def test_review_audit_mode_walks_the_sample_in_its_random_order(app_env):
    ds, sample = _audit(app_env["db"], size=10, reviewed=7)
    at = open_page("pages/review.py")
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("Audit sample").run()
    assert not at.exception
    with LabelStore(app_env["db"]) as store:
        done = store.reviewed_uids("tester")
    first_open = next(u for u in sample.members if u not in done)
    assert at.query_params["uid"] == [first_open] or at.query_params["uid"] == first_open
    progress = [p.proto.text.replace("\\", "") for p in at.get("progress")]
    assert any("Audit sample 1: 7 of 10 reviewed" in t and "1 reviewed examples outside it" in t for t in progress)
    # issue 29: the header says where in the sample, not a filter nobody set
    k = sample.members.index(first_open)
    bodies = html_blocks(at)
    assert any(f"Audit sample #1: member {k + 1} of 10, 7 reviewed" in b for b in bodies), [
        b[:200] for b in bodies if "Audit" in b or "Example" in b
    ]
    assert not any("match" in b for b in bodies if "Audit sample #" in b)
    # J / K walk the sample's random order, as Next in sample does (not row order)
    press(at, "next")
    assert at.query_params["uid"] in ([sample.members[k + 1]], sample.members[k + 1])
    press(at, "prev")
    assert at.query_params["uid"] in ([first_open], first_open)
    # Accept stays in audit mode: no toggle beside the caption saying so
    assert "review.advance" not in [t.key for t in at.toggle]
    # the choice is in the URL: a reload (a new session on the same URL) opens the same queue
    assert at.query_params["queue"] in (["audit"], "audit") and at.query_params["sample"] in (["1"], "1")
    again = open_page("pages/review.py", uid=first_open, queue="audit", sample="1")
    assert open_queue(again).radio(key="review.queue").value == "Audit sample"
    assert any("Audit sample #1: member" in b for b in html_blocks(again))
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("All examples").run()
    assert not at.exception and not [p for p in at.get("progress") if "Audit sample" in p.proto.text]
    assert "queue" not in at.query_params and "review.advance" in [t.key for t in at.toggle]


def test_review_grows_a_paired_sample_by_questions(app_env):
    """Issue 39: a paired sample (both answers of each drawn question) grown on the Review page gains whole questions;
    the sample data holds three questions answered by both of its generation models."""
    from ragviz.analysis.compare_systems.audit import draw_paired

    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        sample = draw_paired(store, ds, 2, "tester", seed=4)
    at = open_page("pages/review.py")
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("Audit sample").run()
    assert not at.exception
    at.number_input(key=f"audit.grow_to.{sample.id}.4").set_value(6).run()
    next(b for b in at.button if b.key == "audit.grow").click().run()
    assert not at.exception
    with LabelStore(app_env["db"]) as store:
        grown = store.audits.get_sample(sample.id)
    assert grown is not None and grown.size == 6 and grown.members[:4] == sample.members
    assert grown.params["questions"] == 3
    a, b = (ds.index_of(u) for u in grown.members[4:])
    assert ds.ids[a] == ds.ids[b] and ds.generation_models[a] != ds.generation_models[b]
