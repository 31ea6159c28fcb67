"""Whose labels (issue 35): one meaning of ``human`` on the Dashboard and in the export, and annotators whose
names are the kinds' (``gold``, ``human``) kept apart from the kinds. Real SQLite stores, the sample data, the
real CLI."""

from __future__ import annotations

import io
import json

import pytest

from ragviz.analysis.dashboard.figures import dashboard_data
from ragviz.analysis.labelsets.named import human_labels, label_sets, resolve_label_set
from ragviz.analysis.labelsets.selection import GOLD, HUMAN, JUDGE, LabelSelection, parse_label_set
from ragviz.cli.main import main
from ragviz.data.errors import BadInput
from ragviz.data.labels import RELEVANT_FIELD, field_value, support_field
from ragviz.data.load import load
from ragviz.export.targets import Target, export
from ragviz.metrics.trace import TRACE_METRICS, example_trace
from ragviz.store.label_store import LabelStore
from tests.sample import SAMPLE_JSONL


def _two_people_two_fields(store: LabelStore, ex):
    """ana drops a relevant key; later bo flips a response sentence's verdict (another field) and nothing else."""
    old = list(ex.labels.relevant_keys)
    store.record(ex.uid, "ana", [(RELEVANT_FIELD, old, old[1:])], example=ex)
    key = ex.response_keys()[0]
    field = support_field(key)
    before = field_value(store.current_labels(ex, "bo"), field)
    store.record(ex.uid, "bo", [(field, before, {**before, "supported": not before["supported"]})], example=ex)
    return old[1:], key, not before["supported"]


def test_two_annotators_editing_different_fields_the_dashboard_and_the_export_agree(tmp_path):
    ds = load([SAMPLE_JSONL]).dataset
    row = next(i for i in range(len(ds)) if len(ds.example(i).labels.relevant_keys) > 1)
    ex = ds.example(row)
    with LabelStore(tmp_path / "l.db") as store:
        relevant, key, supported = _two_people_two_fields(store, ex)

        human = resolve_label_set(ds, HUMAN, store).labels[row]
        # both people's decisions: ana's relevant keys and bo's verdict (not bo's whole labels, which keep ana's key)
        assert list(human.relevant_keys) == relevant
        assert human.support_for(key).supported is supported
        assert human.provenance.name == "bo"  # the row's reviewer: who decided last
        assert human_labels(ex, store) == (human, "bo")  # one example at a time: the same rule

        out = tmp_path / "team.jsonl"
        done = export(store, HUMAN, [str(SAMPLE_JSONL)], Target(str(out), "jsonl"))
        assert done.n_human == 1
        exported = load([out]).dataset
        again = exported.example(exported.index_of(ex.uid))
        assert again.labels.relevant_keys == human.relevant_keys
        assert again.labels.support_for(key).supported is supported
        assert example_trace(again) == example_trace(ex, human)
        written = next(json.loads(line) for line in out.read_text().splitlines() if json.loads(line)["id"] == ex.id)
        assert json.loads(written["field_reviewers"]) == {RELEVANT_FIELD: "ana", support_field(key): "bo"}

        board = dashboard_data(ds, HUMAN, store)
        shown = board.records.set_index("uid").loc[ex.uid]
        for metric in TRACE_METRICS:
            assert shown[metric] == pytest.approx(float(written[f"{metric}_score"]))  # adherence: a bool in the file
        assert board.n_reviewed == 1

        # the CLI's team export is the same file
        cli_out = tmp_path / "cli.jsonl"
        assert (
            main(
                ["export", str(SAMPLE_JSONL), "--db", str(tmp_path / "l.db"), "-o", str(cli_out), "--labels", "latest"]
            )
            == 0
        )
        assert cli_out.read_text() == out.read_text()
        # the Export page's way through the same dispatcher: the loaded data into an open file
        page_file = io.BytesIO()
        assert export(store, HUMAN, ds, Target(page_file, "jsonl")).n_human == 1
        assert page_file.getvalue().decode() == out.read_text()


def test_annotators_named_like_the_kinds_are_people(tmp_path, capsys):
    ds = load([SAMPLE_JSONL]).dataset
    ex = ds.example(0)
    db = tmp_path / "l.db"
    with LabelStore(db) as store:
        old = list(ex.labels.relevant_keys)
        store.record(ex.uid, "gold", [(RELEVANT_FIELD, old, [])], example=ex)
        store.record(ds.example(1).uid, "human", [("review", None, "reviewed")])
        offered = label_sets(store)
        assert offered == [JUDGE, HUMAN, LabelSelection.of("gold"), LabelSelection.of("human")]
        assert [str(s) for s in offered] == ["llm", "human", "gold (annotator)", "human (annotator)"]
        person = resolve_label_set(ds, LabelSelection.of("gold"), store)
        assert set(person.labels) == {0} and person.labels[0].relevant_keys == ()
        assert set(resolve_label_set(ds, LabelSelection.of("human"), store).labels) == {1}
        assert set(resolve_label_set(ds, HUMAN, store).labels) == {0, 1}

    out = tmp_path / "gold-person.jsonl"
    assert main(["export", str(SAMPLE_JSONL), "--db", str(db), "-o", str(out), "--annotator", "gold"]) == 0
    written = next(json.loads(line) for line in out.read_text().splitlines() if json.loads(line)["id"] == ex.id)
    assert written["reviewer"] == "gold" and written["label_source"] == "human"
    assert written["all_relevant_sentence_keys"] == []
    capsys.readouterr()
    assert main(["export", str(SAMPLE_JSONL), "--db", str(db), "-o", str(out), "--labels", "llm"]) == 2
    assert "--labels llm: this option names people's labels" in capsys.readouterr().err

    assert main(["agreement", str(SAMPLE_JSONL), "--db", str(db), "--against", "annotator:gold"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["against"] for r in rows} == {"gold"}
    assert sum(r["judge_agreement"]["n"] for r in rows if r["dataset"] != "ALL") == 1


def test_parsing_a_label_set_names_kinds_and_people():
    assert parse_label_set("latest") == HUMAN == parse_label_set(" human ")
    assert parse_label_set("llm") == JUDGE and parse_label_set("gold") == GOLD
    assert parse_label_set("annotator:gold") == LabelSelection.of("gold") != GOLD
    assert parse_label_set("Ana@Example.org") == LabelSelection.of("ana@example.org")
    assert LabelSelection.of("gold").argument() == "annotator:gold" and LabelSelection.of("ana").argument() == "ana"
    with pytest.raises(BadInput, match="annotator:"):
        parse_label_set("annotator:")
    with pytest.raises(ValueError):
        LabelSelection("annotator")
