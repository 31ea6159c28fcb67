"""`ragviz judge list|show|create|compare|promote` as a person runs them, and `ragviz label` using the promoted
version, against the real stub server; bad input is one clear line and exit 2."""

from __future__ import annotations

import json

import pytest

from ragviz.cli.main import main
from ragviz.data.load import load
from ragviz.judge.cache import JudgeCache
from ragviz.judge.prompt import SHIPPED_PROMPT
from ragviz.judge.versions.registry import get_version, judge_prompt
from ragviz.store.label_store import LabelStore
from tests.cli_run import ragviz
from tests.judge.versions_setup import MARKER, review_truth, write_marker_data
from tests.openai_stub_server import StubServer


@pytest.fixture
def lead(tmp_path):
    data = write_marker_data(tmp_path / "rows.jsonl", 30)
    dataset = load([str(data)]).dataset
    db = str(tmp_path / "ragviz.db")
    with LabelStore(db) as store:
        sample = store.audits.draw_sample(dataset.uids, 12, "lead", seed=4)
        review_truth(store, dataset, list(sample.members))
        outside = [u for u in dataset.uids if u not in sample.members]
        shots = [u for u in outside if int(u.split("/")[1][1:]) % 2 == 0][:2]
        review_truth(store, dataset, shots, note="The zorblat sentence answers the question.")
    return tmp_path, str(data), db, sample, shots, outside


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_leads_walk_in_the_cli(lead, capsys, monkeypatch):
    tmp, data, db, sample, shots, outside = lead
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rubric = tmp / "rubric.txt"
    rubric.write_text("A sentence naming the zorblat reading is relevant.\n")
    code, _, err = run(
        capsys,
        "judge",
        "create",
        "v2",
        data,
        *sum((["--example", u] for u in shots), []),
        "--rubric",
        str(rubric),
        "--model",
        "stub",
        "--db",
        db,
        "--by",
        "lead",
    )
    assert code == 0, err
    code, out, _ = run(capsys, "judge", "list", "--db", db)
    assert [line.split("\t")[0] for line in out.splitlines()] == ["* v1", "  v2"]
    code, out, err = run(capsys, "judge", "show", "v2", "--db", db)
    assert "A sentence naming the zorblat reading is relevant." in out and "People's note" in out
    assert "2 few-shot examples" in err
    with StubServer(marker=MARKER) as stub:
        argv = [
            "judge",
            "compare",
            "v1",
            "v2",
            data,
            "--base-url",
            stub.base_url,
            "--response-format",
            "json_object",
            "--format",
            "json",
            "--db",
            db,
        ]
        code, out, err = run(capsys, *argv)
        assert code == 0, err
        result = json.loads(out)
        assert result["n_examples"] == 12 and f"audit sample {sample.id}" in result["test_set"]
        v1, v2 = result["versions"]
        assert v1["requests"] == 12 and v2["requests"] == 12
        assert v2["agreement"]["relevant"]["kappa"]["value"] > v1["agreement"]["relevant"]["kappa"]["value"]
        assert v1["agreement"]["relevant"]["kappa"]["low"] <= v1["agreement"]["relevant"]["kappa"]["value"]
        assert result["differing"]
        code, out, _ = run(capsys, *argv[:-4], "--format", "table", "--db", db)
        assert (
            code == 0 and "relevant    kappa" in out and "v1: 0 requests, 12 cached; v2: 0 requests, 12 cached" in out
        )
        assert len(stub.calls) == 24  # the second compare asked nothing
        code, _, err = run(capsys, "judge", "promote", "v2", "--db", db, "--by", "lead")
        assert code == 0 and "v2 is the team's judge" in err
        out_file = tmp / "out.jsonl"
        code, _, err = run(
            capsys,
            "label",
            data,
            "--base-url",
            stub.base_url,
            "--response-format",
            "json_object",
            "-o",
            str(out_file),
            "--db",
            db,
        )
        assert code == 0, err
        assert "judge version v2" in err
        # a batch carries the team's judge too: every request line is v2's prompt, its custom_id names v2
        requests = tmp / "requests.jsonl"
        code, _, err = run(capsys, "label", data, "--batch-file", str(requests), "--force", "--model", "m", "--db", db)
        assert code == 0 and "batch requests carry the team's judge, version v2" in err, err
        lines = [json.loads(line) for line in requests.read_text().splitlines()]
        assert lines
    with LabelStore(db) as store, JudgeCache(store.reopen_database()) as cache:
        v2_prompt = v2["prompt_version"]
        system = judge_prompt(get_version(store, "v2"), ()).system
        assert system != SHIPPED_PROMPT.system
        for line in lines:
            assert line["custom_id"].endswith("@" + v2_prompt)
            assert line["body"]["messages"][0] == {"role": "system", "content": system}
        assert cache.runs()[0].prompt_version == v2_prompt
        labels = store.judge.labels(outside[0])
        assert labels is not None and labels.provenance.prompt_version == v2_prompt
        rows = store.query("SELECT DISTINCT prompt_version FROM judge_label_sets")
        assert rows == [(v2_prompt,)]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["judge", "show", "nope"], "no judge version named 'nope' (known: v1)"),
        (["judge", "create", "v1", "DATA"], "NAME: a judge version named 'v1' exists already"),
        (
            ["judge", "create", "x", "DATA", "--example", "SAMPLE"],
            "is in an audit sample (audit samples are test sets)",
        ),
        (
            ["judge", "create", "x", "DATA", "--example", "alpha/q99/gen"],
            "example alpha/q99/gen is not in the data given",
        ),
        (["judge", "create", "x", "missing.jsonl"], "missing.jsonl: no such file"),
        (["judge", "compare", "v1", "DATA", "--human", "DATA", "--model", "m"], "argument --human: not allowed"),
        (["judge", "compare", "nope", "DATA"], "'nope' names no judge version"),
        (["judge", "compare", "v1", "DATA"], "no version names a model: give --model"),
        (["judge", "promote", "ghost"], "no judge version named 'ghost'"),
    ],
)
def test_bad_input_is_one_clear_line(lead, argv, message):
    tmp, data, db, sample, _shots, _outside = lead
    argv = [data if a == "DATA" else sample.members[0] if a == "SAMPLE" else a for a in argv]
    if "--human" in argv:  # --human with --sample is the mutually exclusive case argparse reports
        argv = [*argv, "--sample", "1"]
        message = "not allowed with argument"
    done = ragviz(*argv, "--db", db, cwd=tmp, timeout=60)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_compare_refuses_a_version_showing_a_human_file_example(lead, capsys):
    tmp, data, db, _sample, shots, _outside = lead
    assert run(capsys, "judge", "create", "v2", data, "--example", shots[0], "--db", db)[0] == 0
    code, _, err = run(
        capsys,
        "judge",
        "compare",
        "v2",
        "--human",
        data,
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--db",
        db,
    )
    assert code == 2 and f"shows example {shots[0]} as a few-shot example, but it is in the test set" in err
    empty = tmp / "empty.jsonl"
    empty.write_text("")
    code, _, err = run(capsys, "judge", "compare", "v1", "--human", str(empty), "--model", "m", "--db", db)
    assert code == 2 and ("empty" in err or "no rows" in err), err


def test_compare_refuses_a_human_file_with_two_rows_for_one_example(tmp_path, capsys):
    """The loader kept the first of two rows with one uid: the test set silently lost the person's other label."""
    rows = [json.loads(line) for line in write_marker_data(tmp_path / "rows.jsonl", 3).read_text().splitlines()]
    human = tmp_path / "human.jsonl"
    human.write_text("".join(json.dumps(r) + "\n" for r in [*rows, {**rows[1], "all_relevant_sentence_keys": []}]))
    db = str(tmp_path / "ragviz.db")
    LabelStore(db).close()
    code, out, err = run(capsys, "judge", "compare", "v1", "--human", str(human), "--model", "m", "--db", db)
    assert (code, out) == (2, "") and "Traceback" not in err
    assert err.strip().splitlines() == [
        f"{human}:4: id: duplicate of {human}:2 (same dataset, id and generation model): a file gives one row per "
        "example; remove one of them",
        "1 error: nothing done (run `ragviz validate`)",
    ]


def test_a_rubric_that_cannot_be_read_says_why(tmp_path, capsys):
    """The message named the exception's class (UnicodeDecodeError, IsADirectoryError), not what to fix."""
    data = write_marker_data(tmp_path / "rows.jsonl", 3)
    db = str(tmp_path / "ragviz.db")
    LabelStore(db).close()
    latin = tmp_path / "rubric.txt"
    latin.write_bytes(b"caf\xe9 notes\n")
    for rubric, why in (
        (latin, "not UTF-8 (byte offset 3); save it as UTF-8"),
        (tmp_path / "none.txt", "No such file or directory"),
        (tmp_path, "Is a directory"),
    ):
        code, _, err = run(capsys, "judge", "create", "v2", str(data), "--rubric", str(rubric), "--db", db)
        assert (code, err.strip()) == (2, f"{rubric}: cannot read the rubric: {why}")
