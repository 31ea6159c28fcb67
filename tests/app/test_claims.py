"""The Claims page under AppTest, on RagChecker's own example file: overriding one label moves the
item's values and the file aggregates exactly as RagChecker's formulas say; undo restores them;
the override is a label-store event; the corrected JSON download carries it; bad files are located
errors; claim texts are escaped."""

from __future__ import annotations

import html
import json

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.analysis.claims import matrix_changes, matrix_rows
from ragviz.data.checked_claims import CheckedItem, RetrievedChunk, claim_text
from ragviz.data.claim_overrides import apply_claim_overrides, claim_field, claim_uid, parse_claim_field
from ragviz.data.formats.ragchecker import load_ragchecker
from ragviz.data.labels import Change
from ragviz.metrics.ragchecker import reported
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, shown
from tests.sample import ROOT

EXAMPLE = ROOT.parent / "shared" / "ragchecker" / "checking_outputs.json"
UID0 = claim_uid("checking_outputs.json", "0")
CHUNKS = [f"chunk {c}" for c in range(1, 11)]


def need_example() -> None:
    import os

    if not EXAMPLE.is_file():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{EXAMPLE} is missing (CI=true)")
        pytest.skip(f"{EXAMPLE} is missing")


def open_claims() -> AppTest:
    return open_page("pages/claims.py")


def tables(at: AppTest) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float, float, float]]]:
    frames = [d.value for d in at.dataframe if d.key is None]
    item = next(f for f in frames if "delta" in f.columns)
    agg = next(f for f in frames if "now ×100" in f.columns)
    return (
        {r.metric: (r.file, r.now) for r in item.itertuples()},
        {r[2]: (r[3], r[4], r[5], r[6]) for r in agg.itertuples()},
    )


def editor(at: AppTest, side: str):
    return next(d for d in at.data_editor if d.key.startswith(f"claims.editor.{side}."))


def test_override_one_label_moves_item_and_aggregate_exactly_then_undo(app_env):
    need_example()
    items = load_ragchecker(EXAMPLE)
    at = open_claims()
    at.button(key="claims.open_example").click().run()
    assert not at.exception
    item, agg = tables(at)
    a2r = [label == "Entailment" for label in items[0].answer2response]
    r2a = [label == "Entailment" for label in items[0].response2answer]
    n = len(a2r)
    p0, r0 = sum(a2r) / n, sum(r2a) / len(r2a)
    assert item["precision"] == (pytest.approx(p0), pytest.approx(p0))
    assert agg["precision"][2] == 76.4  # RagChecker's published figure for this file

    # response claim 1 ("Nile is longest river in the world") vs the gt answer: Neutral -> Entailment
    table = editor(at, "response").value
    assert table.loc[0, "vs gt answer"] == "Neutral" and table.loc[0, "chunk 2"] == "Entailment"
    at.session_state[editor(at, "response").key] = {
        "edited_rows": {0: {"vs gt answer": "Entailment"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    item, agg = tables(at)
    p1 = (sum(a2r) + 1) / n
    assert item["precision"][1] == pytest.approx(p1)
    assert item["recall"][1] == pytest.approx(r0)
    assert item["f1"][1] == pytest.approx(2 * p1 * r0 / (p1 + r0))
    # the claim was incorrect and entailed by chunk 2, which entails a gt claim (relevant): it leaves NS(rel)
    assert item["noise_sensitivity_in_relevant"][1] == pytest.approx(item["noise_sensitivity_in_relevant"][0] - 1 / n)
    assert item["faithfulness"][1] == pytest.approx(item["faithfulness"][0])
    p_other = sum(label == "Entailment" for label in items[1].answer2response) / len(items[1].answer2response)
    assert agg["precision"][1] == pytest.approx((p1 + p_other) / 2)
    assert agg["precision"][3] == reported((p1 + p_other) / 2) and agg["precision"][3] != agg["precision"][2]
    assert editor(at, "response").value.loc[0, "vs gt answer"] == "Entailment"

    store = LabelStore(app_env["db"])
    assert [(e.field, e.old, e.new) for e in store.effective(UID0, "tester")] == [
        ("claim:answer2response:0", "Neutral", "Entailment")
    ]
    assert UID0 in store.corrected_uids("tester")

    download = next(b for b in at.get("download_button"))
    assert download.proto.label == "Download corrected RagChecker JSON"

    at.button(key="claims.undo").click().run()
    item, agg = tables(at)
    assert item["precision"] == (pytest.approx(p0), pytest.approx(p0))
    assert agg["precision"][3] == 76.4
    assert UID0 not in LabelStore(app_env["db"]).corrected_uids("tester")


def test_chunk_label_override_and_reset(app_env):
    need_example()
    at = open_claims()
    at.button(key="claims.open_example").click().run()
    item, _ = tables(at)
    # gt claim 1 vs a chunk that entails no gt claim: Neutral -> Entailment. That chunk becomes
    # relevant: context precision = (relevant chunks + 1) / C
    table = editor(at, "gt_answer").value
    n_chunks = sum(1 for c in table.columns if c.startswith("chunk "))
    relevant_before = [any(v == "Entailment" for v in table[f"chunk {c + 1}"]) for c in range(n_chunks)]
    c = relevant_before.index(False)
    assert item["context_precision"][0] == pytest.approx(sum(relevant_before) / n_chunks)
    at.session_state[editor(at, "gt_answer").key] = {
        "edited_rows": {0: {f"chunk {c + 1}": "Entailment"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    after, _ = tables(at)
    assert after["context_precision"][1] == pytest.approx((sum(relevant_before) + 1) / n_chunks)
    assert [e.field for e in LabelStore(app_env["db"]).effective(UID0, "tester")] == [f"claim:retrieved2answer:{c}:0"]
    at.button(key="claims.reset").click().run()
    again, _ = tables(at)
    assert again["context_precision"][1] == pytest.approx(again["context_precision"][0])


def test_ten_chunks_show_four_at_a_time_and_an_override_lands_on_the_chunk_shown(app_env, tmp_path):
    """Ten chunks' labels side by side ran past the page at 1280 px: a matrix shows four chunks at a time, the others
    picked right above it; a label changed in the third window is that chunk's."""
    need_example()
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    for r in data["results"]:
        n = len(r["retrieved_context"])
        r["retrieved_context"] = [dict(r["retrieved_context"][j % n], doc_id=f"d{j}") for j in range(10)]
        for field in ("retrieved2response", "retrieved2answer"):
            r[field] = [[row[j % n] for j in range(10)] for row in r[field]]
    path = tmp_path / "ten_chunks.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    at = open_claims()
    at.text_input(key="claims.path").set_value(str(path))
    at.button(key="claims.open_path").click().run()
    assert not at.exception
    picker = at.radio(key="claims.chunks.gt_answer")
    assert picker.label == "Chunks shown (10 in all)" and picker.options == ["1–4", "5–8", "9–10"]
    assert list(editor(at, "gt_answer").proto.column_order) == ["#", "claim", "vs response", *CHUNKS[:4]]
    picker.set_value(2).run()
    assert list(editor(at, "gt_answer").proto.column_order) == ["#", "claim", "vs response", *CHUNKS[8:]]
    assert list(editor(at, "response").proto.column_order)[3:] == CHUNKS[:4]  # each matrix its own pick
    item = load_ragchecker(path)[0]
    was = item.retrieved2answer[0][9]
    now = "Contradiction" if was != "Contradiction" else "Neutral"
    at.session_state[editor(at, "gt_answer").key] = {
        "edited_rows": {0: {"chunk 10": now}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    uid = claim_uid("ten_chunks.json", item.query_id)
    assert [e.field for e in LabelStore(app_env["db"]).effective(uid, "tester")] == ["claim:retrieved2answer:9:0"]


def test_bad_file_is_a_located_error_and_text_is_escaped(app_env, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "results": [
                    {"query_id": "q1", "response_claims": [["a", "b"]], "answer2response": ["Entailment", "Neutral"]}
                ]
            }
        )
    )
    at = open_claims()
    at.text_input(key="claims.path").set_value(str(bad))
    at.button(key="claims.open_path").click().run()
    assert not at.exception
    text = "\n".join(h.value for h in at.get("html"))
    assert f"{bad}:1: answer2response: has 2 labels but there are 1 response claims" in text

    hostile = tmp_path / "hostile.json"
    hostile.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "query_id": "x",
                        "query": "<script>alert(1)</script>",
                        "gt_answer": "<b>g</b>",
                        "response": "<img src=x onerror=alert(2)>",
                        "retrieved_context": [{"doc_id": "d", "text": "<i>t</i>"}],
                        "response_claims": ["<u>c</u>"],
                        "gt_answer_claims": ["g"],
                        "answer2response": ["Neutral"],
                        "response2answer": ["Entailment"],
                        "retrieved2response": [["Neutral"]],
                        "retrieved2answer": [["Entailment"]],
                    }
                ]
            }
        )
    )
    at.text_input(key="claims.path").set_value(str(hostile))
    at.button(key="claims.open_path").click().run()
    assert not at.exception
    text = "\n".join(h.value for h in at.get("html"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "<script>" not in text
    assert "&lt;img src=x onerror=alert(2)&gt;" in text and "<img" not in text


def test_claim_fields_and_overrides_fold_in_order():
    item = CheckedItem(
        "q",
        "",
        "",
        "",
        (RetrievedChunk("d0", "t"), RetrievedChunk("d1", "u")),
        ("c0", "c1"),
        ("g0",),
        ("Neutral", "Entailment"),
        ("Entailment",),
        (("Neutral", "Neutral"), ("Entailment", "Neutral")),
        (("Entailment", "Neutral"),),
    )
    field = claim_field("retrieved2response", 1, chunk=0)
    assert field == "claim:retrieved2response:0:1" and parse_claim_field(field) == ("retrieved2response", 1, 0)
    folded = apply_claim_overrides(
        item, [(field, "Contradiction"), ("claim:answer2response:0", "Entailment"), ("review", "reviewed")]
    )
    assert folded.retrieved2response == (("Neutral", "Neutral"), ("Contradiction", "Neutral"))
    assert folded.answer2response == ("Entailment", "Entailment")
    assert apply_claim_overrides(item, [("claim:answer2response:0", "Entailment"), ("reset", None)]) == item
    from ragviz.data.formats.ragchecker import items_to_json, parse_ragchecker

    assert parse_ragchecker(items_to_json([folded]), "x.json").items[0].retrieved2response == folded.retrieved2response
    with pytest.raises(ValueError, match="claim:answer2response:5: claim 5 does not exist"):
        apply_claim_overrides(item, [("claim:answer2response:5", "Entailment")])
    with pytest.raises(ValueError, match="chunk 2 does not exist"):
        apply_claim_overrides(item, [("claim:retrieved2answer:2:0", "Entailment")])
    with pytest.raises(ValueError, match="not a claim label field"):
        parse_claim_field("claim:retrieved2answer:0")
    # the editor's edit -> exactly the changed cells
    assert [r["chunk 2"] for r in matrix_rows(item, "response")] == ["Neutral", "Neutral"]
    assert matrix_changes(
        item, "response", {1: {"chunk 1": "Entailment", "chunk 2": "Entailment", "vs gt answer": "Entailment"}}
    ) == [Change("claim:retrieved2response:1:1", "Neutral", "Entailment")]


def test_store_accepts_claim_fields_and_keeps_them_out_of_labels(tmp_path):
    store = LabelStore(tmp_path / "s.db")
    store.record(UID0, "ann", [Change("claim:answer2response:0", "Neutral", "Entailment")])
    assert store.status(UID0, "ann").corrected
    with pytest.raises(ValueError, match="unknown label field"):
        store.record(UID0, "ann", [Change("claims:answer2response:0", None, "x")])


def test_an_audit_sample_of_items_corrects_the_claim_metrics_on_the_page(app_env):
    """Issue 23 item 4: draw an audit sample of the file's items, walk it, and read the claim metrics'
    judge-only, people-only and corrected means (the figures `ragviz estimate --family ragchecker` gives)."""
    need_example()
    at = open_claims()
    at.button(key="claims.open_example").click().run()
    assert any("No audit sample of this file's items yet" in c.value for c in at.caption)
    at.button(key="claims.audit.draw").click().run()
    assert not at.exception, [e.value for e in at.exception]
    with LabelStore(app_env["db"]) as store:
        (sample,) = store.audits.list_samples()
    assert sample.size == 2  # every item of RagChecker's two-item example
    assert any(f"Audit sample {sample.id}: 2 of the file's 2 items" in shown(c.value) for c in at.caption), [
        c.value for c in at.caption
    ]
    for _ in range(2):  # the next member opens; the person accepts it as labelled
        at.button(key="claims.audit.next").click().run()
        assert not at.exception, [e.value for e in at.exception]
        picked = at.selectbox(key="claims.index").value
        assert claim_uid("checking_outputs.json", str(picked)) in sample.members
        at.button(key="claims.review").click().run()
    assert any("Every one of the sample's 2 items is reviewed" in s.value for s in at.success)
    table = next(d.value for d in at.dataframe if "corrected" in d.value.columns)
    precision = table[table["metric"] == "precision"].iloc[0]
    assert precision["judge only"] == pytest.approx(0.7636, abs=1e-3)  # RagChecker's 76.4 for this file
    assert precision["people only"] == pytest.approx(precision["judge only"])  # accepted as labelled


def test_the_example_button_is_there_only_with_the_example_and_its_absence_is_explained(app_env, tmp_path, monkeypatch):
    """Issue 40: RagChecker's example sits in ../shared only in this repository's development setup. With it, the
    page offers a button that opens it; without it, no button and no notice suggesting it, but a line saying where
    the file comes from and how to open it."""
    import ragviz.ui.claims.page as claims_ui

    need_example()
    at = open_claims()
    assert [b for b in at.button if b.key == "claims.open_example"]
    assert any("RagChecker's own example" in i.value for i in at.info)
    at.button(key="claims.open_example").click().run()
    assert not at.exception and at.session_state["claims.source"]["path"] == str(claims_ui.EXAMPLE_FILE)

    monkeypatch.setattr(claims_ui, "EXAMPLE_FILE", tmp_path / "absent" / "checking_outputs.json")
    at = open_claims()
    assert not [b for b in at.button if b.key == "claims.open_example"]
    assert not any("example" in i.value for i in at.info)
    assert claims_ui.NO_EXAMPLE in [c.value for c in at.caption]


def test_a_long_claim_wraps_in_its_matrix_and_one_past_three_lines_shows_whole_below(app_env):
    """The claim column (264 px at 1280 px) cut every claim past ~36 characters: a matrix with one now wraps its
    rows (three lines each), and a claim longer than that is shown whole under its matrix, escaped."""
    need_example()
    at = open_claims()
    at.button(key="claims.open_example").click().run()
    assert editor(at, "response").proto.row_height == editor(at, "gt_answer").proto.row_height == 66
    assert not [h for h in at.get("html") if "in full" in h.value]  # no claim of item 1 runs past three lines

    at.selectbox(key="claims.index").set_value(1).run()
    assert not at.exception
    claim = claim_text(load_ragchecker(EXAMPLE)[1].response_claims[0])
    assert len(claim) > 150
    blocks = [h.value for h in at.get("html") if "Claim 1 in full" in h.value]
    assert len(blocks) == 1 and html.escape(claim) in blocks[0]
