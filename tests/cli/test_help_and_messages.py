"""Issue 40, what trips a new user at the command line: help texts say "95%", not "95%%"; a count of one
problem is "1 error"; ``ragviz label --dry-run`` writes nothing, so it asks for no OUT and no API key."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from ragviz.cli.main import build_parser, main
from tests.sample import SAMPLE_DATA, SAMPLE_JSONL


def _every_parser(parser: argparse.ArgumentParser, path: str = "ragviz"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _every_parser(sub, f"{path} {name}")


def test_no_help_text_shows_a_doubled_percent_sign():
    shown = {path: p.format_help() for path, p in _every_parser(build_parser(None))}
    assert "ragviz report" in shown and "95% intervals" in " ".join(shown["ragviz report"].split())
    doubled = [path for path, text in shown.items() if "%%" in text]
    assert not doubled, doubled


def _file_with_one_bad_row(tmp_path: Path) -> Path:
    good = SAMPLE_JSONL.read_text(encoding="utf-8").splitlines()[0]
    bad = json.dumps({"id": "x", "question": "q", "documents": ["d"]})  # no response: one problem
    path = tmp_path / "one-bad.jsonl"
    path.write_text(f"{good}\n{bad}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "command",
    [
        ["agreement"],
        ["convert", "--to", "ragas", "-o", "OUT"],
        ["label", "--model", "m", "--dry-run"],
        ["metrics"],
        ["validate"],
        ["team", "assign", "--overlap", "1", "--pool", "a,b", "--db", "DB"],
    ],
)
def test_one_problem_is_one_error(tmp_path, capsys, monkeypatch, command):
    monkeypatch.setenv("RAGVIZ_DB", str(tmp_path / "labels.db"))
    data = _file_with_one_bad_row(tmp_path)
    args = [a.replace("OUT", str(tmp_path / "out.jsonl")).replace("DB", str(tmp_path / "team.db")) for a in command]
    first = 2 if args[0] == "team" else 1  # the action's words come before DATA
    assert main([*args[:first], str(data), *args[first:]]) == 2
    err = capsys.readouterr().err
    assert "1 error" in err and "1 errors" not in err, err


def test_error_counts_read_naturally():
    from ragviz.cli.common import errors

    assert [errors(n) for n in (0, 1, 2, 1234)] == ["0 errors", "1 error", "2 errors", "1,234 errors"]


def test_a_dry_run_needs_no_output_and_no_key(tmp_path, capsys, monkeypatch):
    for name in ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAGVIZ_DB", str(tmp_path / "labels.db"))
    monkeypatch.chdir(tmp_path)
    assert main(["label", str(SAMPLE_DATA), "--model", "gpt-4o-mini", "--dry-run"]) == 0
    err = capsys.readouterr().err
    assert "22 examples" in err and "dry run: nothing called, OUT not written" in err
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".jsonl", ".parquet")) == []
    # a live run still needs both
    assert main(["label", str(SAMPLE_DATA), "--model", "gpt-4o-mini"]) == 2
    assert "needs -o/--output" in capsys.readouterr().err
