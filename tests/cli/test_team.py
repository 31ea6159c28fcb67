"""`ragviz team assign / reassign / status`, `import-labels`, `export --labels gold`, `agreement --annotators`:
a round from the command line on the sample data, through the real CLI, with its bad inputs (the first through
``python -m ragviz``, the rest in-process through the same ``main``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_run import ragviz, ragviz_here
from tests.sample import SAMPLE_JSONL


def _rows() -> list[dict]:
    return [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines() if line.strip()]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_round_from_the_command_line(tmp_path):
    db = tmp_path / "team.db"
    bad = ragviz("team", "assign", SAMPLE_JSONL, "--db", db, "--overlap", "4", "--pool", "ana,bo,cy")
    assert bad.returncode == 2 and "overlap 4 is larger than the pool of 3 annotators (ana, bo, cy)" in bad.stderr
    assert "Traceback" not in bad.stderr
    done = ragviz_here(
        "team", "assign", SAMPLE_JSONL, "--db", db, "--overlap", "2", "--pool", "ana,bo,cy", "--by", "lead"
    )
    assert done.returncode == 0, done.stderr
    status = json.loads(ragviz_here("team", "status", "--db", db, "--format", "json").stdout)
    assert set(status) == {"annotators", "examples"}
    assert len(status["examples"]) == 22 and all(len(set(v)) == 2 for v in status["examples"].values())
    assert sorted(a["assigned"] for a in status["annotators"].values()) == [14, 15, 15]
    assert all(a["done"] == 0 for a in status["annotators"].values())

    every = _rows()
    from tests.cli.test_import_labels import _keys_cleaned  # without the keys naming no sentence: refused

    rows = [_keys_cleaned(r) for r in every if r.get("all_relevant_sentence_keys") is not None]  # a person's file
    unlabelled = [
        f"{r['dataset_name']}/{r['id']}/{r['generation_model_name']}"
        for r in every
        if r.get("all_relevant_sentence_keys") is None
    ]
    assert len(unlabelled) == 1
    same = _write(tmp_path / "same.jsonl", rows)
    changed = [dict(r) for r in rows]
    changed[0]["all_relevant_sentence_keys"] = []  # cy thinks nothing in example 1 is relevant
    theirs = _write(tmp_path / "cy.jsonl", changed)
    broken = [dict(r) for r in rows]
    broken[1]["response_sentences"] = [["a", "Something else entirely."]]
    refused = ragviz_here(
        "import-labels",
        _write(tmp_path / "broken.jsonl", broken),
        "--db",
        db,
        "--annotator",
        "ana",
        "--data",
        SAMPLE_JSONL,
    )
    assert refused.returncode == 2 and "broken.jsonl:2: response_sentences: the sentences differ" in refused.stderr
    assert "nothing imported" in refused.stderr
    assert (
        json.loads(ragviz_here("team", "status", "--db", db, "--format", "json").stdout) == status
    )  # nothing recorded
    for who, path in (("ana", same), ("bo", same), ("cy", theirs)):
        run = ragviz_here("import-labels", path, "--db", db, "--annotator", who, "--data", SAMPLE_JSONL)
        assert run.returncode == 0, run.stderr
    status = json.loads(ragviz_here("team", "status", "--db", db, "--format", "json").stdout)
    open_ones = {n: 0 for n in status["annotators"]}
    for n in status["examples"][unlabelled[0]]:
        open_ones[n] = 1
    assert all(a["done"] == a["assigned"] - open_ones[n] for n, a in status["annotators"].items())

    out = tmp_path / "gold.jsonl"
    export = ragviz_here("export", SAMPLE_JSONL, "--db", db, "--labels", "gold", "-o", out)
    assert export.returncode == 0, export.stderr
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    first_uid = f"{rows[0]['dataset_name']}/{rows[0]['id']}/{rows[0]['generation_model_name']}"
    sources = [r["label_source"] for r in exported]
    waiting = every.index(next(r for r in every if r.get("all_relevant_sentence_keys") is None))
    expected = ["agreed"] * 22
    expected[waiting] = None  # unlabelled, and not done: no gold, no labels
    if "cy" in status["examples"][first_uid]:  # cy disagrees there: it waits for an adjudicator
        expected[0] = "llm"
    assert sources == expected
    figures = json.loads(ragviz_here("agreement", SAMPLE_JSONL, "--db", db, "--annotators").stdout)
    assert set(figures["krippendorff_alpha"]) == {"relevant", "utilized", "supported"}
    assert figures["krippendorff_alpha"]["utilized"]["alpha"] == 1.0  # nobody changed a utilized label

    left = ragviz_here("team", "reassign", "--db", db, "--leave", "zed")
    assert left.returncode == 2 and "'zed' has no assignments" in left.stderr
    both = ragviz_here("export", SAMPLE_JSONL, "--db", db, "--labels", "gold", "--annotator", "ana", "-o", out)
    assert both.returncode == 2 and "give --labels or --annotator, not both" in both.stderr
