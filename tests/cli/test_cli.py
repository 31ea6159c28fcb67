"""The `ragviz` command line as a user runs it: real processes, real files, exit codes, messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli_run import ragviz
from tests.ragbench_data import require_ragbench, shard
from tests.sample import ROOT, SAMPLE_DATA


def test_help_names_every_command_and_the_manual_documents_it():
    from ragviz.cli.main import COMMANDS
    from ragviz.cli.manual import cli_reference

    out = ragviz("--help")
    assert out.returncode == 0
    reference = cli_reference()  # docs/reference/cli.md, generated from the parser
    for spec in COMMANDS:
        assert spec.name in out.stdout and spec.help
        sub = ragviz(spec.name, "--help")
        assert sub.returncode == 0 and "usage: ragviz " + spec.name in sub.stdout
        assert f"## `ragviz {spec.name}`" in reference, f"the manual does not show `ragviz {spec.name}`"


def test_metrics_reproduces_stored_scores_for_a_shard(tmp_path):
    require_ragbench()
    out = ragviz("metrics", str(shard("emanual")), "-o", str(tmp_path / "m.jsonl"))
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    import pyarrow.parquet as pq

    rows = pq.read_table(shard("emanual")).to_pylist()
    assert len(records) == len(rows) == 132
    for rec, row in zip(records, rows):
        assert rec["id"] == row["id"] and rec["dataset"] == row["dataset_name"]
        assert rec["generation_model"] == row["generation_model_name"]
        assert (rec["relevance"], rec["utilization"], rec["completeness"]) == (
            row["relevance_score"],
            row["utilization_score"],
            row["completeness_score"],
        )
        assert rec["adherence"] == (1.0 if row["adherence_score"] else 0.0)
    assert "emanual_test" in out.stderr and "ALL" in out.stderr  # the per-dataset summary


def test_metrics_over_a_directory_of_shards_writes_csv(tmp_path):
    require_ragbench()
    out = ragviz("metrics", str(shard("covidqa").parents[1]), "--format", "csv", "-o", str(tmp_path / "m.csv"))
    assert out.returncode == 0, out.stderr
    lines = (tmp_path / "m.csv").read_text().splitlines()
    assert lines[0].split(",")[:7] == [
        "id",
        "dataset",
        "generation_model",
        "relevance",
        "utilization",
        "completeness",
        "adherence",
    ]
    assert len(lines) == 1 + 2896


def test_metrics_to_stdout_and_unlabeled_rows_are_null(tmp_path):
    raw = tmp_path / "raw.jsonl"
    raw.write_text(
        json.dumps(
            {
                "id": "u1",
                "question": "What is 2+2?",
                "documents": ["Two plus two is four. It is basic."],
                "response": "It is four.",
            }
        )
        + "\n"
    )
    out = ragviz("metrics", str(raw))
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout.splitlines()[0])
    assert rec["id"] == "u1"
    assert rec["relevance"] is None and rec["adherence"] is None and rec["trace_mean"] is None


def test_bad_input_exits_2_with_path_row_field(tmp_path):
    bad = tmp_path / "bad.jsonl"
    good = {"id": "1", "question": "q", "documents": ["A sentence."], "response": "An answer."}
    bad.write_text(json.dumps(good) + "\n" + '{"id": "2", "question": "q", "documents": ["x"' + "\n")
    for command in ("validate", "metrics"):
        out = ragviz(command, str(bad))
        assert out.returncode == 2, (command, out.stdout, out.stderr)
        text = out.stdout + out.stderr
        assert f"{bad}:2:" in text
        assert "Traceback" not in text


def test_missing_file_is_a_clear_error(tmp_path):
    out = ragviz("validate", str(tmp_path / "nope.parquet"))
    assert out.returncode == 2
    assert "nope.parquet" in out.stdout + out.stderr and "Traceback" not in out.stderr


def test_validate_sample_data_is_loadable():
    out = ragviz("validate", str(SAMPLE_DATA))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "examples loaded" in out.stderr


def test_a_file_with_no_examples_is_not_loadable_whatever_its_format(tmp_path):
    """An empty JSON Lines file was NOT loadable, but "[]" and a zero-row Parquet file said "0 examples loaded … ok",
    exit 0: a check before a run must not pass a file no page can show."""
    import pyarrow.parquet as pq

    from ragviz.data.load import load

    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "empty.json").write_text("[]")
    pq.write_table(load([str(SAMPLE_DATA)]).dataset.table.slice(0, 0), tmp_path / "empty.parquet")
    for name in ("empty.jsonl", "empty.json", "empty.parquet"):
        out = ragviz("validate", str(tmp_path / name))
        assert out.returncode == 2, (name, out.stdout, out.stderr)
        assert "NOT loadable" in out.stderr and "Traceback" not in out.stderr


def test_cli_never_imports_streamlit():
    code = (
        "import sys, contextlib, io\n"
        "from ragviz.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "    rc = main(['metrics', sys.argv[1]])\n"
        "assert rc == 0, rc\n"
        "assert 'streamlit' not in sys.modules, 'streamlit imported'\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(SAMPLE_DATA)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr


def test_every_command_reports_bad_input_through_one_channel(tmp_path):
    """Each command refuses a bad row the same way: ``PATH:ROW: field: problem`` lines, one summary, exit 2."""
    import os

    bad = tmp_path / "bad.jsonl"
    good = {"id": "1", "question": "q", "documents": ["A sentence."], "response": "An answer."}
    bad.write_text(json.dumps(good) + "\n" + '{"id": "2", "question": "q", "documents": ["x"' + "\n")
    out = str(tmp_path / "out.jsonl")
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-not-used", "RAGVIZ_DB": str(tmp_path / "labels.db")}
    commands = {
        "convert": ["convert", str(bad), "-o", out],
        "export": ["export", str(bad), "-o", out],
        "agreement": ["agreement", str(bad), "--against", "llm"],
        "label": ["label", str(bad), "--model", "gpt-4o-mini", "--db", str(tmp_path / "labels.db"), "-o", out],
    }
    for name, args in commands.items():
        run = subprocess.run(
            [sys.executable, "-m", "ragviz", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
        )
        lines = run.stderr.splitlines()
        assert run.returncode == 2 and "Traceback" not in run.stderr, (name, run.stderr)
        assert [line for line in lines if line.startswith(f"{bad}:2: ")], (name, run.stderr)
        assert " error" in lines[-1] and "1 errors" not in lines[-1] and "nothing" in lines[-1], (name, lines[-1])
        assert not Path(out).exists(), name
    port = ragviz("app", "--port", "0")
    assert port.returncode == 2 and port.stderr == "ragviz app: --port: must be 1-65535, got 0\n"
