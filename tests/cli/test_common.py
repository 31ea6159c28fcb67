"""The label store seen the same way by every command: one ``--db`` declaration, and one rule for a store that
is not there (readers refuse it and create nothing; commands that write create it)."""

from __future__ import annotations

import ast

import pytest

from ragviz.cli.main import main
from tests.sample import ROOT, SAMPLE_DATA


def test_db_is_declared_once():
    declared = []
    for path in sorted((ROOT / "ragviz").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Constant) and a.value == "--db" for a in node.args):
                if getattr(node.func, "attr", "") == "add_argument":
                    declared.append(path.relative_to(ROOT).as_posix())
    assert declared == ["ragviz/cli/common.py"]


READERS = [
    ["audit", "status"],
    ["team", "status"],
    ["judge", "list"],
    ["export", "-o", "OUT"],
    ["estimate", str(SAMPLE_DATA)],
    ["report", str(SAMPLE_DATA), "-o", "OUT"],
    ["agreement", str(SAMPLE_DATA)],
]


@pytest.mark.parametrize("argv", READERS, ids=lambda a: " ".join(a[:2]))
def test_a_reader_refuses_a_missing_store_and_creates_none(argv, tmp_path, capsys):
    missing = tmp_path / "typo.db"
    argv = [str(tmp_path / "out.jsonl") if a == "OUT" else a for a in argv]
    assert main([*argv, "--db", str(missing)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"{missing}: no label store here (give the file the app uses, default ~/.ragviz/ragviz.db)"
    assert not missing.exists()


def test_a_writer_creates_the_store(tmp_path, capsys):
    db = tmp_path / "new.db"
    assert main(["audit", "draw", str(SAMPLE_DATA), "--db", str(db), "--size", "2", "--seed", "1"]) == 0
    assert db.is_file()
    assert main(["audit", "status", "--db", str(db), "--format", "json"]) == 0


def test_a_writer_refuses_a_store_in_a_missing_folder(tmp_path, capsys):
    db = tmp_path / "no" / "such" / "new.db"
    assert main(["audit", "draw", str(SAMPLE_DATA), "--db", str(db), "--size", "2"]) == 2
    assert capsys.readouterr().err.strip().endswith("new.db: no such folder for a label store")
    assert not (tmp_path / "no").exists()


def test_who_runs_a_command_without_a_login_name_is_annotator_not_a_traceback(tmp_path, capsys, monkeypatch):
    """audit draw and judge create name who did it: $RAGVIZ_ANNOTATOR, else the login name; a container's user with
    no entry in the user database and no $USER made getpass raise out of audit draw (judge said "unknown"); the app's
    name for such a person is "annotator"."""
    import getpass
    import json

    from ragviz.cli.common import login_name

    def no_entry() -> str:
        raise KeyError("getpwuid(): uid not found: 1234")

    monkeypatch.delenv("RAGVIZ_ANNOTATOR", raising=False)
    monkeypatch.setattr(getpass, "getuser", no_entry)
    assert login_name() == "annotator"  # as the app names a local person
    db = tmp_path / "l.db"
    assert main(["audit", "draw", str(SAMPLE_DATA), "--db", str(db), "--size", "5", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["sample"] == 1
    monkeypatch.setenv("RAGVIZ_ANNOTATOR", "ana")
    assert login_name() == "ana"


@pytest.mark.parametrize("command", [["audit", "draw", "--size", "5"], ["report", "-o", "r.html"]])
def test_data_that_does_not_load_is_named_with_how_many_more_problems(tmp_path, capsys, command):
    """audit draw named only the first load error, where report and estimate said how many more (one rule now)."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"\n{"id": "b"\n{"id": "c"\n', encoding="utf-8")
    verb = command[:2] if command[0] == "audit" else command[:1]
    rest = command[len(verb) :]
    rest = [str(tmp_path / r) if r.endswith(".html") else r for r in rest]
    code = main([*verb, str(bad), "--db", str(tmp_path / "l.db"), *rest])
    err = capsys.readouterr().err
    assert code == 2
    assert "bad.jsonl:1:" in err and "(and 2 more: run `ragviz validate`)" in err
