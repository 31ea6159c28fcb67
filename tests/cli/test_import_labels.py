"""`ragviz import-labels` checks every key against the example's sentences and every field's type: a bad row
refuses the whole import, naming file, row, field and key, one line each (exit 2), and nothing is recorded."""

from __future__ import annotations

from ragviz.store.label_store import LabelStore
from tests.cli.test_team import _rows, _write, ragviz
from tests.sample import SAMPLE_JSONL


def _labelled() -> list[dict]:
    """The sample's labelled rows as a person's file: without the judge's keys that name no sentence, which the
    sample carries on purpose (sample_data/README.md) and an import refuses."""
    return [_keys_cleaned(r) for r in _rows() if r.get("all_relevant_sentence_keys") is not None]


def _keys_cleaned(row: dict) -> dict:
    context = {k for doc in row["documents_sentences"] for k, _ in doc}
    keep = lambda keys: [k for k in keys if k.rstrip(".") in context]  # noqa: E731
    support = [
        {**s, "supporting_sentence_keys": keep(s["supporting_sentence_keys"])}
        for s in row["sentence_support_information"]
    ]
    return {
        **row,
        "all_relevant_sentence_keys": keep(row["all_relevant_sentence_keys"]),
        "all_utilized_sentence_keys": keep(row["all_utilized_sentence_keys"]),
        "sentence_support_information": support,
    }


def test_a_key_the_example_does_not_have_refuses_the_import_naming_file_row_field_and_key(tmp_path):
    db = tmp_path / "labels.db"
    LabelStore(db).close()
    rows = [dict(r) for r in _labelled()]
    bad = rows[1]
    bad["all_relevant_sentence_keys"] = [*bad["all_relevant_sentence_keys"], "9z"]
    support = [dict(s) for s in bad["sentence_support_information"]]
    support[0]["response_sentence_key"] = "zz"
    support[1]["supporting_sentence_keys"] = ["0b", "7q"]
    bad["sentence_support_information"] = support
    path = _write(tmp_path / "people.jsonl", rows)
    run = ragviz("import-labels", path, "--db", db, "--annotator", "ana", "--data", SAMPLE_JSONL)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    uid = f"{bad['dataset_name']}/{bad['id']}/{bad['generation_model_name']}"
    assert lines[:3] == [
        f"{path}:2: all_relevant_sentence_keys: key 9z is not a sentence of the documents"
        f" ({', '.join(_context_keys(bad))}) of example {uid}: refused",
        f"{path}:2: sentence_support_information[0].response_sentence_key: key zz is not a sentence of the response"
        f" ({', '.join(k for k, _ in bad['response_sentences'])}) of example {uid}: refused",
        f"{path}:2: sentence_support_information[1].supporting_sentence_keys: key 7q is not a sentence of the"
        f" documents ({', '.join(_context_keys(bad))}) of example {uid}: refused",
    ]
    assert lines[-1] == "1 row refused (3 problems): nothing imported"
    with LabelStore(db) as store:
        assert store.n_events() == 0  # the good rows were not imported either


def test_a_field_of_the_wrong_type_refuses_the_import(tmp_path):
    db = tmp_path / "labels.db"
    LabelStore(db).close()
    rows = [dict(r) for r in _labelled()]
    rows[0]["all_utilized_sentence_keys"] = "0a"
    rows[2]["overall_supported"] = "yes"
    path = _write(tmp_path / "people.jsonl", rows)
    run = ragviz("import-labels", path, "--db", db, "--annotator", "ana", "--data", SAMPLE_JSONL)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"{path}:1: all_utilized_sentence_keys: expected a list of strings, got str" in run.stderr
    assert f"{path}:3: overall_supported: expected true, false or null, got str" in run.stderr
    assert run.stderr.strip().splitlines()[-1] == "2 rows refused: nothing imported"
    with LabelStore(db) as store:
        assert store.n_events() == 0
    good = _write(tmp_path / "good.jsonl", _labelled())
    ok = ragviz("import-labels", good, "--db", db, "--annotator", "Ana@Example.org", "--data", SAMPLE_JSONL)
    assert ok.returncode == 0, ok.stderr
    assert "as ana@example.org's decisions" in ok.stderr
    with LabelStore(db) as store:
        assert store.annotators() == ["ana@example.org"]


def _context_keys(row: dict) -> list[str]:
    return [k for doc in row["documents_sentences"] for k, _ in doc][:12] + (
        [f"... {sum(len(d) for d in row['documents_sentences']):,} in all"]
        if sum(len(d) for d in row["documents_sentences"]) > 12
        else []
    )


def test_the_samples_own_bad_keys_are_refused(tmp_path):
    db = tmp_path / "labels.db"
    LabelStore(db).close()
    path = _write(tmp_path / "judged.jsonl", [r for r in _rows() if r.get("all_relevant_sentence_keys") is not None])
    run = ragviz("import-labels", path, "--db", db, "--annotator", "ana", "--data", SAMPLE_JSONL)
    assert run.returncode == 2
    assert "all_relevant_sentence_keys: key 1f is not a sentence of the documents (0a, 0b, 0c, 0d, 0e, 1a" in run.stderr
    assert "all_relevant_sentence_keys: key general is not a sentence" in run.stderr
    assert "key 0b." not in run.stderr  # a judge's trailing dot names its sentence
    assert run.stderr.splitlines()[-1] == "3 rows refused (5 problems): nothing imported"


def test_two_rows_for_one_example_refuse_the_import_naming_both_rows(tmp_path):
    """The loader keeps the first of two rows with one uid (a warning): an import recorded the first and dropped the
    person's second label of the same example without a word."""
    db = tmp_path / "labels.db"
    LabelStore(db).close()
    rows = [dict(r) for r in _labelled()]
    second = {**rows[0], "all_relevant_sentence_keys": rows[0]["all_relevant_sentence_keys"][:1]}
    path = _write(tmp_path / "people.jsonl", [*rows, second])
    run = ragviz("import-labels", path, "--db", db, "--annotator", "ana", "--data", SAMPLE_JSONL)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    n = len(rows) + 1
    assert run.stderr.strip().splitlines() == [
        f"{path}:{n}: id: duplicate of {path}:1 (same dataset, id and generation model): a file gives one row per"
        " example; remove one of them: refused",
        "1 row refused: nothing imported",
    ]
    with LabelStore(db) as store:
        assert store.n_events() == 0


def test_one_example_in_two_files_refuses_the_import_naming_both(tmp_path):
    """Two files given together, each with a row for the same example: the later one won without a word (the
    person's other label lost); now the import is refused, naming both rows."""
    db = tmp_path / "labels.db"
    LabelStore(db).close()
    rows = [dict(r) for r in _labelled()]
    first = _write(tmp_path / "monday.jsonl", rows[:2])
    again = {**rows[1], "all_relevant_sentence_keys": rows[1]["all_relevant_sentence_keys"][:1]}
    second = _write(tmp_path / "tuesday.jsonl", [rows[2], again])
    run = ragviz("import-labels", first, second, "--db", db, "--annotator", "ana", "--data", SAMPLE_JSONL)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert lines[-1] == "1 row refused: nothing imported"
    assert lines[0].startswith(f"{second}:2: id: ") and f"is also in {first}:2" in lines[0]
    with LabelStore(db) as store:
        assert store.n_events() == 0
