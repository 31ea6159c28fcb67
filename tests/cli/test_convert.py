"""Fitting the tools RAG teams use (issue 14, the data side): Ragas, DeepEval, Hugging Face `datasets` and
RagChecker files in, the same shapes out (`ragviz convert`, `ragviz export --to`), round trips per pair,
Parquet with `datasets` features and a dataset card, files that follow the umask.

`datasets` is the real library (requirements-dev.txt). Ragas 0.4.3 and DeepEval would change the project's
`openai` (Ragas) or pull two dozen packages with four pytest plugins into the test environment (DeepEval), so
their loaders are stood in for by models written from their documented shapes (below); the fixture files are
in the shapes their `to_jsonl` / `save_as` write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from pydantic import BaseModel, ConfigDict

from ragviz.cli.convert import convert_command
from ragviz.cli.export import export_command
from ragviz.data.labels import RELEVANT_IDS_FIELD, Change, field_value, toggle_key
from ragviz.data.load import load
from ragviz.export.rows import export_rows
from ragviz.metrics.retrieval import family_records
from ragviz.store.label_store import LabelStore
from tests.cli_run import ragviz, ragviz_here
from tests.ragbench_data import require_ragbench, shard
from tests.sample import ROOT

FIXTURES = Path(__file__).parents[1] / "fixtures"
CHECKING_OUTPUT = ROOT.parent / "shared" / "ragchecker" / "checking_outputs.json"


# -- the libraries' documented shapes ------------------------------------------------------------------
class RagasSingleTurnSample(BaseModel):
    """ragas 0.4.3 ``ragas.dataset_schema.SingleTurnSample`` (its fields, all optional); ``extra="forbid"``
    so a field Ragas does not have fails the test."""

    model_config = ConfigDict(extra="forbid")
    user_input: str | None = None
    retrieved_contexts: list[str] | None = None
    reference_contexts: list[str] | None = None
    retrieved_context_ids: list[str | int] | None = None
    reference_context_ids: list[str | int] | None = None
    response: str | None = None
    multi_responses: list[str] | None = None
    reference: str | None = None
    rubrics: dict[str, str] | None = None
    persona_name: str | None = None
    query_style: str | None = None
    query_length: str | None = None


def ragas_from_jsonl(path: Path) -> list[RagasSingleTurnSample]:
    """``EvaluationDataset.from_jsonl``: one JSON object a line, each ``SingleTurnSample(**record)``."""
    return [RagasSingleTurnSample(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]


class DeepEvalTestCase(BaseModel):
    """DeepEval ``LLMTestCase`` (the fields a RAG test case uses; ``input`` and ``actual_output`` required)."""

    input: str
    actual_output: str
    expected_output: str | None = None
    context: list[str] | None = None
    retrieval_context: list[str] | None = None
    additional_metadata: dict[str, Any] | None = None


# every field of DeepEval's LLMTestCase (what a test case written for DeepEval may hold)
LLM_TEST_CASE_FIELDS = {
    *DeepEvalTestCase.model_fields,
    "name",
    "tags",
    "comments",
    "tools_called",
    "expected_tools",
    "token_cost",
    "completion_time",
}


def deepeval_from_json(path: Path) -> list[DeepEvalTestCase]:
    """``EvaluationDataset.add_test_cases_from_json_file``: a JSON list of objects, each field read by its key."""
    records = json.loads(path.read_text(encoding="utf-8"))
    return [DeepEvalTestCase(**{k: r.get(k) for k in DeepEvalTestCase.model_fields if k in r}) for r in records]


def deepeval_from_csv(path: Path) -> list[DeepEvalTestCase]:
    """``add_test_cases_from_csv_file(..., context_col_delimiter="|", retrieval_context_col_delimiter="|")``."""
    import csv

    with open(path, newline="", encoding="utf-8") as f:
        return [
            DeepEvalTestCase(
                input=r["input"],
                actual_output=r["actual_output"],
                expected_output=r["expected_output"] or None,
                context=r["context"].split("|") if r["context"] else None,
                retrieval_context=r["retrieval_context"].split("|") if r["retrieval_context"] else None,
                additional_metadata=json.loads(r["additional_metadata"]) if r["additional_metadata"] else None,
            )
            for r in csv.DictReader(f)
        ]


def _convert(inputs: list[Path], out: Path, to: str) -> Path:
    assert convert_command([str(p) for p in inputs], str(out), to) == 0
    return out


def _loaded(path: Path):
    result = load([path])
    assert result.ok, [str(e) for e in result.errors]
    return result.dataset


# -- inputs --------------------------------------------------------------------------------------------
def test_deepeval_retrieval_context_is_the_documents_and_context_the_reference():
    ds = _loaded(FIXTURES / "deepeval_save_as.json")
    ex = ds.example(0)
    assert ex.documents == ("Paris is the capital of France.", "The U.S. capital is Washington.")
    assert ds.table.column("reference_contexts").to_pylist()[0] == ["France's capital city is Paris."]
    assert ex.reference_answer == "Paris" and ex.question == "What is the capital of France?"


def test_deepeval_save_as_csv_with_pipe_joined_lists():
    ds = _loaded(FIXTURES / "deepeval_save_as.csv")
    json_ds = _loaded(FIXTURES / "deepeval_save_as.json")
    for i in range(2):
        assert ds.example(i).documents == json_ds.example(i).documents
        assert ds.example(i).response_sentences == json_ds.example(i).response_sentences
    assert ds.table.column("reference_contexts").to_pylist() == json_ds.table.column("reference_contexts").to_pylist()
    assert ds.table.column("additional_metadata").to_pylist()[1] == {"source": "wiki"}


def test_deepeval_save_as_jsonl_with_pipe_joined_strings(tmp_path):
    cases = json.loads((FIXTURES / "deepeval_save_as.json").read_text())
    jsonl = tmp_path / "goldens.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps({**c, "retrieval_context": "|".join(c["retrieval_context"]), "context": "|".join(c["context"])})
            + "\n"
            for c in cases
        )
    )
    a, b = _loaded(jsonl), _loaded(FIXTURES / "deepeval_save_as.json")
    assert [a.example(i).documents for i in range(2)] == [b.example(i).documents for i in range(2)]
    assert a.table.column("reference_contexts").to_pylist() == b.table.column("reference_contexts").to_pylist()


def test_ragas_context_ids_are_the_retrieval_ids_the_metrics_use():
    ds = _loaded(FIXTURES / "ragas_ids.jsonl")
    assert ds.example(0).retrieved_ids == ("d1", "d2") and ds.example(0).relevant_ids == ("d1", "d9")
    records = list(family_records(ds.table.to_pylist(), ks=(1, 2)))
    assert [r["mrr"] for r in records] == [1.0, 0.5]
    assert [r["recall@2"] for r in records] == [0.5, 1.0]


def test_hf_datasets_to_json_and_save_to_disk_load(tmp_path):
    datasets = pytest.importorskip("datasets")
    rows = [json.loads(line) for line in (FIXTURES / "ragas_ids.jsonl").read_text().splitlines()]
    hf = datasets.Dataset.from_list(rows)
    hf.to_json(str(tmp_path / "hf.json"))  # JSON lines in a .json file
    hf.save_to_disk(str(tmp_path / "disk"))
    datasets.DatasetDict({"test": hf}).save_to_disk(str(tmp_path / "dict"))
    expected = _loaded(FIXTURES / "ragas_ids.jsonl")
    for path, subset in ((tmp_path / "hf.json", "hf"), (tmp_path / "disk", "disk"), (tmp_path / "dict", "dict")):
        ds = _loaded(path)
        assert len(ds) == 2 and ds.example(0).dataset == subset
        for i in range(2):
            a, b = ds.example(i), expected.example(i)
            assert (a.id, a.question, a.document_sentences, a.response_sentences) == (
                b.id,
                b.question,
                b.document_sentences,
                b.response_sentences,
            )
            assert (a.retrieved_ids, a.relevant_ids, a.reference_answer) == (
                b.retrieved_ids,
                b.relevant_ids,
                b.reference_answer,
            )


def test_bad_tool_input_names_file_row_and_field(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps({"user_input": "q", "retrieved_contexts": ["d."], "response": "r.", "reference_contexts": "x"})
        + "\n"
        + json.dumps({"input": "q", "actual_output": "r.", "context": ["only the ideal context"]})
        + "\n"
    )
    result = load([bad])
    assert [str(e) for e in result.errors] == [
        f"{bad}:1: reference_contexts: expected a list of strings, got str",
        f"{bad}:2: documents: missing required field (documents or documents_sentences; "
        "DeepEval's `context` is the ideal context, the documents are `retrieval_context`)",
    ]
    broken_disk = tmp_path / "disk"
    broken_disk.mkdir()
    (broken_disk / "state.json").write_text(json.dumps({"_data_files": [{"filename": "data-00000-of-00001.arrow"}]}))
    (broken_disk / "dataset_info.json").write_text("{}")
    (broken_disk / "data-00000-of-00001.arrow").write_bytes(b"not arrow")
    assert [str(e) for e in load([broken_disk]).errors][0].startswith(
        f"{broken_disk / 'data-00000-of-00001.arrow'}: file: unreadable Arrow stream"
    )
    (broken_disk / "state.json").write_text("[" * 100_000)  # json.loads raised RecursionError: a traceback
    deep = load([broken_disk])
    assert [str(w) for w in deep.warnings] == [
        f"{broken_disk / 'state.json'}: _data_files: not readable (nested too deep); reading data-*.arrow"
    ]
    assert [str(e) for e in deep.errors][0].startswith(f"{broken_disk / 'data-00000-of-00001.arrow'}: file: unreadable")


# -- outputs the libraries load ------------------------------------------------------------------------
def test_convert_to_ragas_loads_as_ragas_evaluation_dataset(tmp_path):
    out = _convert([FIXTURES / "deepeval_save_as.csv"], tmp_path / "r.jsonl", "ragas")
    samples = ragas_from_jsonl(out)
    assert samples[1].user_input == "Who wrote Hamlet?"
    assert samples[1].reference_contexts == [
        "Hamlet was written by William Shakespeare around 1600.",
        "It is set in Denmark.",
    ]
    assert samples[0].retrieved_contexts == ["Paris is the capital of France.", "The U.S. capital is Washington."]


def test_convert_to_deepeval_loads_with_deepevals_loaders(tmp_path):
    require_ragbench()
    for name in ("t.json", "t.csv"):
        out = _convert([shard("emanual")], tmp_path / name, "deepeval")
        cases = deepeval_from_json(out) if name.endswith(".json") else deepeval_from_csv(out)
        if name.endswith(".json"):
            assert all(set(r) <= LLM_TEST_CASE_FIELDS for r in json.loads(out.read_text()))
        assert len(cases) == 132
        assert cases[0].retrieval_context and cases[0].additional_metadata["ragbench"]["id"]


# -- round trips: every field both shapes hold -----------------------------------------------------------
def _rows(path: Path) -> list[dict]:
    return export_rows(_loaded(path), None, None)


def _strip(row: dict) -> dict:
    return {k: v for k, v in row.items() if v is not None}


@pytest.mark.parametrize("name", ["d.json", "d.csv"])
def test_ragbench_to_deepeval_and_back_keeps_everything(tmp_path, name):
    require_ragbench()
    out = _convert([shard("covidqa")], tmp_path / name, "deepeval")
    before, after = _rows(shard("covidqa")), _rows(out)
    assert len(before) == len(after) == 246
    for a, b in zip(before, after):
        assert _strip(a) == _strip(b)


def test_ragbench_to_ragas_and_back_keeps_the_fields_ragas_has(tmp_path):
    source = tmp_path / "rows.jsonl"
    rows = [
        {
            "id": f"r{i}",
            "question": f"Question {i}?",
            "documents": ["First doc. Two sentences.", "Second doc."],
            "response": "An answer. Another.",
            "reference_answer": "The reference.",
            "retrieved_ids": ["a", "b"],
            "relevant_ids": ["b"],
            "reference_contexts": ["Gold passage."],
        }
        for i in range(3)
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = _convert([source], tmp_path / "r.jsonl", "ragas")
    back = _loaded(out)
    for i, row in enumerate(rows):
        ex = back.example(i)
        assert ex.question == row["question"] and ex.documents == tuple(row["documents"])
        assert ex.response == row["response"] and ex.reference_answer == row["reference_answer"]
        assert ex.retrieved_ids == tuple(row["retrieved_ids"]) and ex.relevant_ids == tuple(row["relevant_ids"])
        assert back.table.column("reference_contexts").to_pylist()[i] == row["reference_contexts"]


@pytest.mark.parametrize("via", ["ragbench", "deepeval"])
def test_ragas_there_and_back(tmp_path, via):
    middle = _convert([FIXTURES / "ragas_ids.jsonl"], tmp_path / f"m.{'json' if via == 'deepeval' else 'jsonl'}", via)
    back = _convert([middle], tmp_path / "back.jsonl", "ragas")
    original = [json.loads(line) for line in (FIXTURES / "ragas_ids.jsonl").read_text().splitlines()]
    assert [json.loads(line) for line in back.read_text().splitlines()] == original


@pytest.mark.parametrize("via", ["ragbench", "ragas"])
def test_deepeval_there_and_back(tmp_path, via):
    middle = _convert([FIXTURES / "deepeval_save_as.json"], tmp_path / "m.jsonl", via)
    back = deepeval_from_json(_convert([middle], tmp_path / "back.json", "deepeval"))
    original = deepeval_from_json(FIXTURES / "deepeval_save_as.json")
    fields = ("input", "actual_output", "expected_output", "retrieval_context", "context")
    assert [[getattr(c, f) for f in fields] for c in back] == [[getattr(c, f) for f in fields] for c in original]


def test_ragchecker_there_and_back(tmp_path):
    if not CHECKING_OUTPUT.is_file():
        pytest.skip("../shared/ragchecker not present")
    from ragviz.data.formats.ragchecker import items_to_json, read_ragchecker

    middle = _convert([CHECKING_OUTPUT], tmp_path / "rows.jsonl", "ragbench")
    back = _convert([middle], tmp_path / "back.json", "ragchecker")
    assert items_to_json(read_ragchecker(back).items) == items_to_json(read_ragchecker(CHECKING_OUTPUT).items)


def test_ragbench_to_ragchecker_and_back_keeps_identity_and_texts(tmp_path):
    require_ragbench()
    out = _convert([shard("emanual")], tmp_path / "rc.json", "ragchecker")
    before, after = _loaded(shard("emanual")), _loaded(out)
    assert before.uids == after.uids
    for i in range(len(before)):
        a, b = before.example(i), after.example(i)
        assert (a.question, a.documents, a.response) == (b.question, b.documents, b.response)


# -- export --to with the store's corrections --------------------------------------------------------------
def test_export_to_deepeval_and_ragas_carries_the_corrected_labels(tmp_path):
    rows = [json.loads(line) for line in (FIXTURES / "ragas_ids.jsonl").read_text().splitlines()]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({**r, "id": f"q{i}"}) + "\n" for i, r in enumerate(rows)))
    ds = _loaded(data)
    db = tmp_path / "labels.db"
    ex = ds.example(0)
    with LabelStore(db) as store:
        store.record(ex.uid, "alice", [Change(RELEVANT_IDS_FIELD, None, ["d2"])])
        cur = store.current_labels(ex, "alice")
        key = ex.context_keys()[0]
        store.record(ex.uid, "alice", [Change("relevant_keys", field_value(cur, "relevant_keys"), toggle_key((), key))])
    assert export_command(str(db), str(tmp_path / "o.jsonl"), None, "alice", [str(data)], "ragas") == 0
    samples = ragas_from_jsonl(tmp_path / "o.jsonl")
    assert samples[0].reference_context_ids == ["d2"] and samples[1].reference_context_ids == ["d2"]
    assert export_command(str(db), str(tmp_path / "o.json"), None, "alice", [str(data)], "deepeval") == 0
    carried = deepeval_from_json(tmp_path / "o.json")[0].additional_metadata["ragbench"]
    assert carried["label_source"] == "human" and carried["reviewer"] is None or carried["relevant_ids"] == ["d2"]
    back = _loaded(tmp_path / "o.json").example(0)
    assert back.labels is not None and back.labels.relevant_keys == (key,)
    assert back.relevant_ids == ("d2",)


def test_export_to_ragchecker_applies_claim_corrections(tmp_path):
    if not CHECKING_OUTPUT.is_file():
        pytest.skip("../shared/ragchecker not present")
    from ragviz.data.claim_overrides import claim_uid
    from ragviz.data.formats.ragchecker import read_ragchecker

    data = tmp_path / "checked.json"
    data.write_bytes(CHECKING_OUTPUT.read_bytes())
    first = read_ragchecker(data).items[0]
    flipped = "Neutral" if first.answer2response[0] == "Entailment" else "Entailment"
    db = tmp_path / "labels.db"
    with LabelStore(db) as store:
        uid = claim_uid(data.name, first.query_id)
        store.record(uid, "alice", [Change("claim:answer2response:0", first.answer2response[0], flipped)])
    out = tmp_path / "corrected.json"
    assert export_command(str(db), str(out), None, "alice", [str(data)], "ragchecker") == 0
    assert read_ragchecker(out).items[0].answer2response[0] == flipped


def test_validate_accepts_ragchecker_files(tmp_path):
    if not CHECKING_OUTPUT.is_file():
        pytest.skip("../shared/ragchecker not present")
    run = ragviz_here("validate", CHECKING_OUTPUT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "RagChecker checking output" in run.stderr and ": ok" in run.stderr
    bad = tmp_path / "bad.json"
    data = json.loads(CHECKING_OUTPUT.read_text())
    data["results"][1]["answer2response"] = data["results"][1]["answer2response"][:-1] + ["Entailment"] * 2
    bad.write_text(json.dumps(data))
    run = ragviz("validate", bad)
    assert run.returncode == 2 and f"{bad}:2: answer2response: has " in run.stdout


# -- Parquet for Hugging Face ----------------------------------------------------------------------------
def test_parquet_export_has_datasets_features_and_a_card(tmp_path):
    datasets = pytest.importorskip("datasets")
    require_ragbench()
    out = tmp_path / "export"
    assert convert_command([str(shard("covidqa"))], str(out) + "/", "ragbench") == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    ours = datasets.load_dataset(str(out), split="train")
    theirs = datasets.load_dataset("parquet", data_files=str(shard("covidqa")), split="train")
    assert {k: v for k, v in ours.features.items() if k in theirs.features} == dict(theirs.features)
    assert "overall_supported" in ours.features and "label_source" in ours.features
    for name in ours.features:
        line = next(line for line in card.splitlines() if line.startswith(f"| `{name}` |"))
        assert "carried over unchanged" not in line, name
    assert "whole response supported" in card
    metadata = json.loads(pq.read_schema(out / "data-00000-of-00001.parquet").metadata[b"huggingface"])
    assert set(metadata["info"]["features"]) == set(ours.features)
    # a file with --card: <stem>.README.md beside it
    assert convert_command([str(shard("covidqa"))], str(tmp_path / "one.parquet"), "ragbench", card=True) == 0
    lines = (tmp_path / "one.README.md").read_text(encoding="utf-8").splitlines()
    assert len([line for line in lines if line.startswith("| `")]) == len(ours.features)


def test_exported_files_follow_the_umask(tmp_path):
    script = (
        "import os, sys; os.umask(int(sys.argv[1], 8)); from ragviz.cli.main import main; "
        "sys.exit(main(['convert', sys.argv[2], '-o', sys.argv[3], '--to', 'ragas']))"
    )
    for umask, mode in (("022", 0o644), ("077", 0o600), ("002", 0o664)):
        out = tmp_path / f"out{umask}.jsonl"
        run = subprocess.run(
            [sys.executable, "-c", script, umask, str(FIXTURES / "ragas_ids.jsonl"), str(out)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert run.returncode == 0, run.stderr
        assert out.stat().st_mode & 0o777 == mode
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic temp file is renamed, never left behind


def test_card_of_any_input_loads_with_datasets(tmp_path):
    """Columns of the input (all-null ones, names YAML would read as booleans) keep the card's header valid."""
    datasets = pytest.importorskip("datasets")
    rows = [json.loads(line) for line in (FIXTURES / "ragas_ids.jsonl").read_text().splitlines()]
    source = tmp_path / "odd.jsonl"
    source.write_text("".join(json.dumps({**r, "on": "yes", "Note: x": None, "1st": 1}) + "\n" for r in rows))
    out = tmp_path / "out"
    assert convert_command([str(source)], str(out) + "/", "ragbench") == 0
    ds = datasets.load_dataset(str(out), split="train")
    assert ds["on"] == ["yes", "yes"] and ds["1st"] == [1, 1] and "Note: x" in ds.features


def test_ragas_and_deepeval_through_ragchecker_keep_what_ragchecker_holds(tmp_path):
    middle = _convert([FIXTURES / "ragas_ids.jsonl"], tmp_path / "rc.json", "ragchecker")
    back = [json.loads(line) for line in _convert([middle], tmp_path / "back.jsonl", "ragas").read_text().splitlines()]
    original = [json.loads(line) for line in (FIXTURES / "ragas_ids.jsonl").read_text().splitlines()]
    held = ("user_input", "retrieved_contexts", "response", "reference", "retrieved_context_ids")
    assert [[r[f] for f in held] for r in back] == [[r[f] for f in held] for r in original]

    middle = _convert([FIXTURES / "deepeval_save_as.json"], tmp_path / "rc2.json", "ragchecker")
    cases = deepeval_from_json(_convert([middle], tmp_path / "back.json", "deepeval"))
    held = ("input", "actual_output", "expected_output", "retrieval_context")
    original_cases = deepeval_from_json(FIXTURES / "deepeval_save_as.json")
    assert [[getattr(c, f) for f in held] for c in cases] == [[getattr(c, f) for f in held] for c in original_cases]


@pytest.mark.parametrize("via", ["deepeval", "ragas"])
def test_ragchecker_through_ragas_and_deepeval(tmp_path, via):
    if not CHECKING_OUTPUT.is_file():
        pytest.skip("../shared/ragchecker not present")
    from ragviz.data.formats.ragchecker import items_to_json

    middle = _convert([CHECKING_OUTPUT], tmp_path / ("m.json" if via == "deepeval" else "m.jsonl"), via)
    back = json.loads(_convert([middle], tmp_path / "back.json", "ragchecker").read_text())["results"]
    original = json.loads(CHECKING_OUTPUT.read_text())["results"]
    if via == "deepeval":  # DeepEval carries every RagChecker field (claims and labels in additional_metadata)
        from ragviz.data.formats.ragchecker import read_ragchecker

        assert items_to_json(read_ragchecker(tmp_path / "back.json").items) == items_to_json(
            read_ragchecker(CHECKING_OUTPUT).items
        )
        return
    for a, b in zip(back, original):  # Ragas: the texts and the chunk ids, no query id, no claims
        assert (a["query"], a["gt_answer"], a["response"]) == (b["query"], b["gt_answer"], b["response"])
        assert a["retrieved_context"] == [
            {"doc_id": str(c["doc_id"]), "text": c["text"]} for c in b["retrieved_context"]
        ]


def test_streamed_parquet_export_to_a_directory_has_the_features_and_a_card(tmp_path):
    """``ragviz export`` of Parquet input streams record batches; a directory OUT still gets the
    Hugging Face layout: one data file with RAGBench's feature types and its card."""
    require_ragbench()
    out = tmp_path / "hub"
    assert export_command(None, str(out) + "/", "parquet", None, [str(shard("covidqa"))]) == 0
    written = out / "data-00000-of-00001.parquet"
    schema = pq.read_schema(written)
    features = json.loads(schema.metadata[b"huggingface"])["info"]["features"]
    assert set(features) == set(schema.names) and pq.read_metadata(written).num_rows == 246
    card = (out / "README.md").read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in card for name in schema.names)


def test_a_row_left_out_as_a_duplicate_is_named(tmp_path, capsys):
    """The loader keeps the first of two rows with one uid: convert wrote one row fewer and said only 'converted N'."""
    from ragviz.cli.main import main

    row = {"id": "1", "question": "q", "documents": ["A sentence."], "response": "An answer."}
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in [row, {**row, "id": "2"}, {**row, "response": "Other."}]))
    out = tmp_path / "out.jsonl"
    assert main(["convert", str(src), "-o", str(out)]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"{src}:3: id: duplicate of {src}:1 (same dataset, id and generation model); kept the first, skipped this row",
        f"converted 2 examples to {out} (jsonl)",
    ]
