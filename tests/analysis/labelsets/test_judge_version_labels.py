"""``judge:NAME``, a judge version's labels as a label set (issue 35: "LabelSelection: judge, gold, latest-per-field,
one annotator, the judge version N"): parsed like the others, read from the store per example (the latest set of
that version), refused in one line naming the versions with labels, usable as ``agreement --against`` and
``export --labels``. Real SQLite stores, the sample data, the real CLI."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ragviz.analysis.labelsets.named import resolve_label_set
from ragviz.analysis.labelsets.selection import JUDGE, LabelSelection, parse_label_set
from ragviz.cli.main import main
from ragviz.data.errors import BadInput
from ragviz.data.load import load
from ragviz.data.model import Provenance
from ragviz.judge.prompt import PROMPT_VERSION
from ragviz.judge.versions.prompt import version_prompt
from ragviz.judge.versions.registry import checked_selection, create_version, version_label_sets
from ragviz.store.label_store import LabelStore
from tests.cli_run import ragviz
from tests.sample import SAMPLE_JSONL


def test_judge_version_is_parsed_as_a_kind_and_people_keep_their_names():
    chosen = parse_label_set(" judge:v2 ")
    assert chosen == LabelSelection.of_version("v2") and chosen.kind == "version" and chosen.prompt_version == ""
    assert chosen.name == chosen.label() == chosen.argument() == str(chosen) == "judge:v2"
    assert parse_label_set("judge") == JUDGE  # the judge's latest labels, as llm
    person = parse_label_set("annotator:judge:v2")
    assert person == LabelSelection.of("judge:v2") and person.label() == "judge:v2 (annotator)"
    assert person.argument() == "annotator:judge:v2" and parse_label_set(person.argument()) == person
    with pytest.raises(BadInput, match="name the judge version after 'judge:'"):
        parse_label_set("judge: ", option="--against")
    with pytest.raises(ValueError):
        LabelSelection("version")
    with pytest.raises(ValueError):
        LabelSelection("judge", prompt_version="ragviz-judge-v1")


@pytest.fixture
def world(tmp_path):
    """The sample data; v1 (the shipped prompt) labelled rows 0-2 with no relevant keys, v2 (stored) rows 1-3 with
    only the first of each row's relevant keys, and v1 once more row 2 (so row 2's v1 labels are the later ones)."""
    ds = load([SAMPLE_JSONL]).dataset
    db = tmp_path / "labels.db"
    with LabelStore(db) as store:
        v2 = create_version(store, ds, "v2", rubric="Mark fewer sentences.", created_by="lead")
        v2_prompt = version_prompt(v2, ()).version

        def labelled(row, keys, prompt):
            ex = ds.example(row)
            return ex.uid, replace(ex.labels, relevant_keys=keys, provenance=Provenance("llm", "m", None, prompt))

        store.judge.save_many([labelled(r, (), PROMPT_VERSION) for r in (0, 1, 2)])
        store.judge.save_many([labelled(r, ds.example(r).labels.relevant_keys[:1], v2_prompt) for r in (1, 2, 3)])
        store.judge.save(*labelled(2, ds.example(2).labels.relevant_keys[-1:], PROMPT_VERSION))
    return ds, db, v2_prompt


def test_a_judge_versions_labels_are_its_latest_per_example(world):
    ds, db, v2_prompt = world
    with LabelStore(db) as store:
        offered = version_label_sets(store)
        assert [s.name for s in offered] == ["judge:v1", "judge:v2"]
        assert offered[1] == LabelSelection.of_version("v2", v2_prompt)
        assert checked_selection(store, parse_label_set("judge:v2")) == offered[1]
        with pytest.raises(BadInput, match=r"judge version 'v9' .*\(judge versions with labels: judge:v1, judge:v2\)"):
            checked_selection(store, parse_label_set("judge:v9"))
        v1 = resolve_label_set(ds, offered[0], store)
        v2 = resolve_label_set(ds, offered[1], store)
        assert sorted(v1.labels) == [0, 1, 2] and sorted(v2.labels) == [1, 2, 3]
        assert (
            v1.labels[0].relevant_keys == () and v1.labels[2].relevant_keys == ds.example(2).labels.relevant_keys[-1:]
        )
        assert all(v2.labels[r].relevant_keys == ds.example(r).labels.relevant_keys[:1] for r in (1, 2, 3))
        assert v2.name == "judge:v2"
        # over the whole data set the rows v2 did not label keep the judge's latest labels (row 0: v1's)
        everything = resolve_label_set(ds, offered[1], store, scope="all").labels
        assert everything[0].relevant_keys == () and everything[3].relevant_keys == v2.labels[3].relevant_keys
        with pytest.raises(ValueError, match="check the judge version"):
            resolve_label_set(ds, parse_label_set("judge:v2"), store)  # not checked against the store


def test_agreement_against_a_judge_version(world, capsys):
    ds, db, _ = world
    assert main(["agreement", str(SAMPLE_JSONL), "--db", str(db), "--against", "judge:v2"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["against"] for r in rows} == {"judge:v2"}
    overall = next(r for r in rows if r["dataset"] == "ALL")["judge_agreement"]
    assert overall["n"] == 3  # the examples v2 labelled
    # v1 labelled rows 0-2
    assert main(["agreement", str(SAMPLE_JSONL), "--db", str(db), "--against", "judge:v1"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert next(r for r in rows if r["dataset"] == "ALL")["judge_agreement"]["n"] == 3


def test_an_unknown_judge_version_is_refused_in_one_line(world, tmp_path):
    _, db, _ = world
    done = ragviz("agreement", SAMPLE_JSONL, "--db", db, "--against", "judge:v9")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"{db}: --against judge:v9: no labels of judge version 'v9' in this store "
        "(judge versions with labels: judge:v1, judge:v2)"
    ]
    done = ragviz("export", SAMPLE_JSONL, "--db", db, "-o", tmp_path / "x.jsonl", "--labels", "judge:v3")
    assert done.returncode == 2 and "judge versions with labels: judge:v1, judge:v2" in done.stderr
    assert not (tmp_path / "x.jsonl").exists()
    help_text = ragviz("export", "--help").stdout
    assert "judge:VERSION" in help_text and "judge:VERSION" in ragviz("agreement", "--help").stdout


def test_export_writes_a_judge_versions_labels(world, tmp_path, capsys):
    ds, db, _ = world
    out = tmp_path / "v2.jsonl"
    assert main(["export", str(SAMPLE_JSONL), "--db", str(db), "-o", str(out), "--labels", "judge:v2"]) == 0
    assert "judge:v2: that judge version's labels where it labelled an example" in capsys.readouterr().err
    written = [json.loads(line) for line in out.read_text().splitlines()]  # in row order
    again = load([out]).dataset
    assert len(written) == len(ds) == len(again)
    for row in range(len(ds)):
        ex = ds.example(row)
        back = again.example(again.index_of(ex.uid))
        if row <= 3:
            assert written[row]["label_source"] == "llm" and written[row]["reviewer"] is None
        if row in (1, 2, 3):  # v2's labels, and the same as the judge's (llm_) copies
            assert back.labels.relevant_keys == ex.labels.relevant_keys[:1] == back.judge_labels.relevant_keys
        elif row == 0:  # v2 did not label it: the judge's latest (v1's) labels
            assert back.labels.relevant_keys == ()
        else:  # nobody judged it in the store: as loaded
            assert back.labels == ex.labels or back.labels.relevant_keys == ex.labels.relevant_keys
    # a push to Phoenix sends people's labels only
    with LabelStore(db) as store:
        from ragviz.cli.common import export_selection

        with pytest.raises(BadInput, match="names people's labels: human, gold, an annotator$"):
            export_selection(store, None, "judge:v2", command="ragviz push phoenix", path=str(db))
        from ragviz.export.traces.targets import push_labels

        with pytest.raises(BadInput, match="a push sends people's labels, not judge:v2's"):  # the Export page's push
            push_labels(ds, store, checked_selection(store, parse_label_set("judge:v2")), None, lambda *_: None)
