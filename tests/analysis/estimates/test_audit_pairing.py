"""ragviz.analysis.estimates.pairing (pairing judge and people per example) and ragviz.analysis.estimates.report."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragviz.analysis.estimates.estimate import estimate_mean
from ragviz.analysis.estimates.pairing import (
    AuditError,
    PairedExample,
    Pairing,
    audit_flag,
    example_metrics,
    pair_human,
)
from ragviz.analysis.estimates.report import estimate_report, metric_arrays
from ragviz.data.load import load
from ragviz.metrics.retrieval import example_retrieval
from ragviz.metrics.tonic import example_tonic
from ragviz.metrics.trace import example_trace
from tests.sample import SAMPLE_JSONL


def _rows():
    return [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()]


def _dataset(rows, path: Path):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = load([path])
    assert result.ok, result.errors
    return result.dataset


def test_example_metrics_are_the_families_own_values():
    dataset = load([SAMPLE_JSONL]).dataset
    example = next(e for e in dataset if e.labels is not None and e.retrieved_ids)
    values = example_metrics(example, example.labels, ("trace", "tonic", "retrieval"))
    trace = example_trace(example)
    assert {m: values[m] for m in ("relevance", "utilization", "completeness", "adherence")} == {
        m: getattr(trace, m) for m in ("relevance", "utilization", "completeness", "adherence")
    }
    assert all(values[k] == v for k, v in example_tonic(example, example.labels).as_dict().items())
    (system_values,) = example_retrieval(example, labels=example.labels).values()
    assert all(values[k] == v for k, v in system_values.items())
    assert example_metrics(example, None, ("trace",)) == {}
    with pytest.raises(ValueError, match="unknown families"):
        example_metrics(example, example.labels, ("answer",))


def test_audit_flag_values():
    assert [audit_flag(v, "f:1") for v in (True, False, None, 1, 0, "yes", "no", "TRUE", "", '"true"')] == [
        True,
        False,
        False,
        True,
        False,
        True,
        False,
        True,
        False,
        True,
    ]
    for bad in ("maybe", 2, [True]):
        with pytest.raises(AuditError, match="f:7: audit_sample: expected true or false"):
            audit_flag(bad, "f:7")


def test_pair_human_refuses_a_row_whose_sentences_differ(tmp_path):
    rows = _rows()
    data = _dataset(rows, tmp_path / "d.jsonl")
    changed = dict(rows[0])
    changed["documents_sentences"] = changed["documents_sentences"][:1]
    changed["documents"] = changed["documents"][:1]
    human = _dataset([changed, rows[1]], tmp_path / "h.jsonl")
    with pytest.raises(AuditError, match=r"h\.jsonl:1: documents_sentences: keys differ from the judged row"):
        pair_human(data, human)


def test_report_counts_exclusions_and_matches_estimate_mean():
    def ex(uid, dataset, judge, human=None):
        return PairedExample(uid, dataset, "m", {"adherence": judge}, None if human is None else {"adherence": human})

    examples = [
        ex("a", "x", 1.0, 0.0),
        ex("b", "x", 1.0, 1.0),
        ex("c", "y", None, 1.0),  # audited, judge undefined: excluded
        ex("d", "y", 0.0, 0.0),
        ex("e", "y", 1.0),
        ex("f", "x", None),  # judge-only, undefined: excluded
        ex("g", "x", 1.0),
    ]
    pairing = Pairing(examples)
    assert (pairing.n_labeled, pairing.n_unlabeled) == (4, 3)
    y, f, fu, excluded = metric_arrays(examples, "adherence")
    assert y.tolist() == [0.0, 1.0, 0.0] and f.tolist() == [1.0, 1.0, 0.0] and fu.tolist() == [1.0, 1.0]
    assert excluded == (1, 1)
    report = estimate_report(pairing, 0.1, by="dataset_name")
    assert report.overall.metrics["adherence"] == estimate_mean(y, f, fu, 0.1, (1, 1))
    assert list(report.groups) == ["x", "y"]
    # group y has one usable audited pair: no interval, said in the notes
    assert report.groups["y"].metrics["adherence"].ppi.ci() is None
    notes = report.notes()
    assert "adherence: undefined on 1 audited and 1 other examples: left out" in notes
    assert any(n.startswith("y: adherence: 1 audited example(s)") for n in notes)
    rows = report.rows()
    assert [(r["group"], r["metric"]) for r in rows] == [("ALL", "adherence"), ("x", "adherence"), ("y", "adherence")]
    assert np.isclose(rows[0]["ppi"], report.overall.metrics["adherence"].ppi.estimate)
    with pytest.raises(ValueError, match="cannot group by"):
        estimate_report(pairing, 0.1, by="question")


def test_the_metrics_of_a_pairing_are_those_defined_somewhere_in_first_defined_order():
    """A metric undefined (None) where it first appears is named where it is first defined; people's metrics count
    as the judge's do; a metric defined nowhere is left out."""

    def paired(judge, human=None):
        return PairedExample("u", "d", "m", judge, human)

    pairing = Pairing(
        [
            paired({"relevance": 0.5, "utilization": None, "never": None}),
            paired({"relevance": 0.2, "utilization": None, "never": None}, {"adherence": 1.0}),
            *[paired({"relevance": 0.1}) for _ in range(3)],
            paired({"relevance": 0.2, "utilization": 0.4, "never": None}),
        ]
    )
    assert pairing.metric_names() == ["relevance", "adherence", "utilization"]


def _reviewed_export(rows, seed: int):
    """Rows as a reviewed export has them: a person's rows with the judge's copy under ``llm_`` (some without one),
    the judge's rows, an ``audit_sample`` flag on each, a few rows with no labels at all."""
    import random

    from ragviz.data.ragbench import LABEL_FIELDS

    rng = random.Random(seed)
    out = []
    for i, row in enumerate(rows):
        judged = {**row, "all_relevant_sentence_keys": (row.get("all_relevant_sentence_keys") or [])[1:]}
        if i % 7 == 3:
            judged = {k: v for k, v in row.items() if k not in LABEL_FIELDS}  # unlabelled
        kind = rng.random()
        if kind < 0.4:
            out.append({**row, **{"llm_" + k: judged.get(k) for k in LABEL_FIELDS}, "label_source": "human"})
        elif kind < 0.5:
            out.append({**row, "label_source": "human"})
        else:
            out.append({**judged, "label_source": "llm"})
        out[-1]["audit_sample"] = rng.random() < 0.6
    bare = {k: v for k, v in rows[5].items() if k not in LABEL_FIELDS}  # a person's row in the sample, no labels yet
    out.append({**bare, "id": "unlabelled-person-row", "label_source": "human", "audit_sample": True})
    return out


def test_pair_export_scores_judge_rows_on_columns_as_it_scores_examples(tmp_path):
    """A judge-labelled row is scored on the label columns (or the caller's scores) instead of being built: the same
    pairing as building every example and scoring its judge's and people's labels, row by row."""
    from ragviz.analysis.dashboard.rows import row_figures
    from ragviz.analysis.estimates.pairing import pair_export
    from ragviz.data.dataset import iter_examples

    dataset = _dataset(_reviewed_export(_rows(), seed=4), tmp_path / "export.jsonl")
    sources = dataset.table.column("label_source").to_pylist()
    flags = dataset.table.column("audit_sample").to_pylist()
    expected = []
    for i, ex in iter_examples(dataset):
        audited = sources[i] == "human" and bool(flags[i])
        human = example_metrics(ex, ex.labels) if audited else None
        expected.append(
            PairedExample(
                ex.uid, ex.dataset, ex.generation_model, example_metrics(ex, ex.judge_labels), human, str(ex.source)
            )
        )
    assert any(p.human is not None for p in expected) and any(p.judge == {} for p in expected)
    assert expected[-1].human == {}  # audited, with nothing to score
    assert pair_export(dataset).examples == expected
    assert pair_export(dataset, scores=row_figures(dataset).scores).examples == expected
    assert pair_export(dataset, ("trace", "tonic")).examples[0].judge.keys() > expected[0].judge.keys()
