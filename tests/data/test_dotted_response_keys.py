"""Response-sentence keys a judge wrote with a trailing dot (issue 29, item 4).

In 227 RAGBench test rows the judge keyed its support entries ``a.``, ``b.`` (and some unsupported
lists the same way). Loading matches each such key to its sentence, so Review shows the judge's
verdict on sentence ``a`` and an edit of ``a`` changes that one entry (before: every sentence
showed undecided and a flip wrote a second entry, the export holding both ``('a.', ['0c'], None)``
and ``('a', [], True)``); ``ragviz validate`` says how many keys it matched. The metrics stay the
row's stored scores (tests/test_conformance.py)."""

from __future__ import annotations

import json

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.analysis.review.edits import UNDECIDED, response_spans, verdict_change
from ragviz.data.load import load
from ragviz.data.ragbench import example_from_row
from ragviz.export.files import export_bytes
from ragviz.metrics.trace import trace_scores
from ragviz.store.label_store import LabelStore
from tests.cli_run import ragviz_here
from tests.ragbench_data import require_ragbench, shard

HAGRID = "hagrid_test/hagrid_1108_0"


def _support(row: dict) -> list[tuple]:
    return [
        (e["response_sentence_key"], e["supporting_sentence_keys"], e["fully_supported"])
        for e in row["sentence_support_information"]
    ]


def test_a_dotted_key_is_its_sentence_and_an_edit_changes_that_one_entry(tmp_path):
    require_ragbench()
    ds = load([shard("hagrid")]).dataset
    row = next(i for i, uid in enumerate(ds.uids) if uid.startswith(HAGRID + "/"))
    ex = ds.example(row)
    assert [e["response_sentence_key"] for e in ds.row(row)["sentence_support_information"]] == ["a.", "b.", "c."]
    assert [s.key for s in ex.labels.support] == ["a", "b", "c"]
    assert ex.judge_labels is ex.labels
    assert UNDECIDED not in [s.status for s in response_spans(ex, ex.labels)]

    with LabelStore(tmp_path / "labels.db") as store:
        current = store.current_labels(ex, "ann")
        assert store.record(ex.uid, "ann", [verdict_change(current, ex.judge_labels, "a", False)], example=ex)
        exported = [
            json.loads(line)
            for line in export_bytes(ds, store, LabelSelection.of("ann"), "jsonl").decode().splitlines()
        ]
    out = next(r for r in exported if r["id"] == "hagrid_1108_0")
    assert _support(out) == [("a", ["0c"], False), ("b", ["0c"], None), ("c", ["0g"], None)]


def test_matching_changes_no_metric_and_no_key_that_names_its_sentence():
    require_ragbench()
    import pyarrow.parquet as pq

    matched = 0
    for subset in ("hagrid", "covidqa", "hotpotqa"):
        for row in pq.read_table(shard(subset)).to_pylist():
            ex = example_from_row(row)
            scores = trace_scores(ex.labels, sum(len(d) for d in ex.document_sentences))
            assert scores.adherence == row["adherence_score"], ex.uid
            response = set(ex.response_keys())
            raw = [e["response_sentence_key"] for e in row["sentence_support_information"] or ()]
            keys = [s.key for s in ex.labels.support]
            assert len(keys) == len(raw)
            matched += sum(a != b for a, b in zip(raw, keys))
            assert all(k in response or k == r for k, r in zip(keys, raw))
    assert matched > 0
    # a key already keyed, or naming no sentence, stays as written
    from ragviz.data.dotted_keys import match_response_keys

    ex = example_from_row(pq.read_table(shard("hagrid")).slice(0, 1).to_pylist()[0])
    assert match_response_keys(ex.labels, set()) is ex.labels


def test_validate_says_how_many_dotted_keys_it_matched():
    root = require_ragbench()
    out = ragviz_here("validate", root)
    assert out.returncode == 0, out.stderr
    assert "471 in   227 examples: response sentence key with a trailing dot ('a.'), matched to its sentence" in (
        out.stderr
    )
