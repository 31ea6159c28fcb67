"""The bundled sample data: schema, keys, stored scores, the worked example, the deliberate judge
mistakes, and that the real loader reads it cleanly."""

from __future__ import annotations

import functools
import importlib.util
import json
import shutil
import subprocess
import sys
from collections import Counter

import pytest

from ragviz.data.keys import context_key, parse_context_key, response_key
from ragviz.data.ragbench import example_from_row, labels_from_row
from ragviz.metrics.trace import trace_scores
from tests.sample import ROOT, SAMPLE_DATA, SAMPLE_JSONL

GENERATOR = ROOT / "scripts" / "make_sample_data.py"
SOURCE_DIR = ROOT / "scripts" / "sample_data_source"

CORE = {
    "id",
    "question",
    "documents",
    "response",
    "generation_model_name",
    "annotating_model_name",
    "dataset_name",
    "documents_sentences",
    "response_sentences",
    "relevance_score",
    "utilization_score",
    "completeness_score",
    "adherence_score",
    "reference_answer",
}
LABEL_FIELDS = {
    "sentence_support_information",
    "unsupported_response_sentence_keys",
    "overall_supported_explanation",
    "relevance_explanation",
    "all_relevant_sentence_keys",
    "all_utilized_sentence_keys",
}
RETRIEVAL = {"retrieved_ids", "relevant_ids"}
SUPPORT_FIELDS = {"response_sentence_key", "explanation", "supporting_sentence_keys", "fully_supported"}
SCORES = ("relevance_score", "utilization_score", "completeness_score", "adherence_score")


def _rows() -> list[dict]:
    return [json.loads(line) for line in SAMPLE_JSONL.read_text(encoding="utf-8").splitlines()]


ROWS = _rows()


def _row(example_id: str, model: str = "") -> dict:
    found = [r for r in ROWS if r["id"] == example_id and (not model or r["generation_model_name"] == model)]
    assert len(found) == 1, f"{example_id}/{model}: {len(found)} rows"
    return found[0]


def _context_keys(row: dict) -> set[str]:
    return {key for doc in row["documents_sentences"] for key, _ in doc}


def _sentence(row: dict, key: str) -> str:
    pairs = [p for doc in row["documents_sentences"] for p in doc] + row["response_sentences"]
    return dict(pairs)[key]


def _support(row: dict, key: str) -> dict:
    return next(s for s in row["sentence_support_information"] if s["response_sentence_key"] == key)


@functools.cache
def _generator():
    """scripts/make_sample_data.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("ragviz_make_sample_data", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- shape ------------------------------------------------------------------------------------------------


def test_every_line_is_a_json_object_with_ragbench_field_names():
    lines = SAMPLE_JSONL.read_text(encoding="utf-8").splitlines()
    assert 20 <= len(lines) <= 30
    for n, line in enumerate(lines, 1):
        row = json.loads(line)
        assert isinstance(row, dict), f"line {n}"
        fields = set(row)
        labeled = row["annotating_model_name"] is not None
        expected = CORE | (LABEL_FIELDS if labeled else set()) | (RETRIEVAL & fields)
        assert fields == expected, f"line {n}: unexpected {fields ^ expected}"
        if labeled:
            for entry in row["sentence_support_information"]:
                assert set(entry) == SUPPORT_FIELDS, f"line {n}"
                assert isinstance(entry["fully_supported"], bool)
            assert isinstance(row["adherence_score"], bool)


# -- the generator and its sources (scripts/make_sample_data.py, scripts/sample_data_source/) ----------------


def test_generator_writes_exactly_the_committed_sample_data(tmp_path):
    """Code, sources and sample_data/ cannot drift: regenerating gives the committed files byte for byte."""
    out = tmp_path / "sample_data"
    subprocess.run([sys.executable, str(GENERATOR), "--output", str(out / SAMPLE_JSONL.name)], check=True, cwd=tmp_path)
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(p.name for p in SAMPLE_DATA.iterdir()) == ["README.md", "ragviz_sample.jsonl"]
    for name in written:
        assert (out / name).read_bytes() == (SAMPLE_DATA / name).read_bytes(), f"sample_data/{name} is stale"


def test_check_flags_a_stale_file(tmp_path):
    shutil.copytree(SAMPLE_DATA, tmp_path / "sample_data")
    output = tmp_path / "sample_data" / SAMPLE_JSONL.name
    assert _generator().main(["--check", "--output", str(output)]) == 0
    output.write_text(output.read_text(encoding="utf-8").replace("gpt-4o-mini", "gpt-4o-maxi"), encoding="utf-8")
    assert _generator().main(["--check", "--output", str(output)]) == 1


@pytest.mark.parametrize(
    ("name", "edit", "error"),
    [
        ("techqa_sample.json", lambda ex: ex[0]["labels"]["relevant"].append("9z"), r"keys \['9z'\] name no sentence"),
        ("techqa_sample.json", lambda ex: ex[0]["labels"].update(relevent=[]), r"unknown fields \['relevent'\]"),
        ("techqa_sample.json", lambda ex: ex[0].pop("question"), r"missing fields \['question'\]"),
        ("medqa_sample.json", lambda ex: ex[0].pop("documents"), "no documents to reuse"),
        ("medqa_sample.json", lambda ex: ex[0]["labels"]["support"].pop(), "one support verdict per response sentence"),
        ("financeqa_sample.json", lambda ex: ex[0]["labels"]["support"][0].update(supported="yes"), "true or false"),
        ("policyqa_sample.json", lambda ex: ex[0]["documents"][0].update(sentences=["One.", "Two."]), "expected 3-8"),
        ("index.json", lambda index: index["mistakes"].pop(3), "has bogus_keys but no entry in index.json mistakes"),
        ("index.json", lambda index: index["mistakes"][0].update(id="med-999"), "mistakes name no example"),
    ],
)
def test_generator_refuses_a_broken_source(tmp_path, name, edit, error):
    """The sources are edited by hand: a typo is an error naming the example, never a silently different file."""
    source = tmp_path / "source"
    shutil.copytree(SOURCE_DIR, source)
    data = json.loads((source / name).read_text(encoding="utf-8"))
    edit(data)
    (source / name).write_text(json.dumps(data), encoding="utf-8")
    generator = _generator()
    with pytest.raises(generator.SourceError, match=error):
        generator.build_rows(generator.load_source(source))


def test_variety_domains_models_sizes_and_shared_ids():
    assert len({r["dataset_name"] for r in ROWS}) >= 4
    assert {r["generation_model_name"] for r in ROWS} == {"gpt-4o-mini", "llama-3.1-8b-instruct"}
    for r in ROWS:
        assert 2 <= len(r["documents"]) <= 4, r["id"]
        assert all(3 <= len(doc) <= 8 for doc in r["documents_sentences"]), r["id"]
        assert 2 <= len(r["response_sentences"]) <= 5, r["id"]
    by_id = Counter(r["id"] for r in ROWS)
    shared = [i for i, n in by_id.items() if n > 1]
    assert shared
    for example_id in shared:
        group = [r for r in ROWS if r["id"] == example_id]
        assert len({r["generation_model_name"] for r in group}) == len(group)
        assert len({json.dumps(r["documents"]) for r in group}) == 1, "same question, same retrieved documents"
    uids = [(r["dataset_name"], r["id"], r["generation_model_name"]) for r in ROWS]
    assert len(set(uids)) == len(uids)


def test_references_and_retrieval_ids():
    list_refs = [r["id"] for r in ROWS if isinstance(r["reference_answer"], list)]
    assert 1 <= len(list_refs) <= 2
    assert all(isinstance(r["reference_answer"], (str, list)) and r["reference_answer"] for r in ROWS)
    with_ids = [r for r in ROWS if "retrieved_ids" in r]
    assert len(with_ids) > len(ROWS) * 0.75
    for r in with_ids:
        assert len(r["retrieved_ids"]) == len(r["documents"]), r["id"]
        assert r["relevant_ids"], r["id"]
    assert any(set(r["relevant_ids"]) - set(r["retrieved_ids"]) for r in with_ids), "one gold document is missed"


# -- keys -------------------------------------------------------------------------------------------------


def test_sentence_keys_follow_the_scheme_and_texts_join_to_documents():
    for r in ROWS:
        for i, doc in enumerate(r["documents_sentences"]):
            assert [k for k, _ in doc] == [context_key(i, j) for j in range(len(doc))]
            assert " ".join(t for _, t in doc) == r["documents"][i]
        keys = [k for k, _ in r["response_sentences"]]
        assert keys == [response_key(j) for j in range(len(keys))]
        assert " ".join(t for _, t in r["response_sentences"]) == r["response"]
        if "sentence_support_information" in r:
            assert [s["response_sentence_key"] for s in r["sentence_support_information"]] == keys


# -- scores -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['id']}/{r['generation_model_name']}" for r in ROWS])
def test_stored_scores_equal_trace_on_stored_labels(row):
    n = sum(len(doc) for doc in row["documents_sentences"])
    scores = trace_scores(labels_from_row(row), n)
    assert row["relevance_score"] == scores.relevance
    assert row["utilization_score"] == scores.utilization
    assert row["completeness_score"] == scores.completeness
    expected_adherence = None if scores.adherence is None else scores.adherence == 1.0
    assert row["adherence_score"] is expected_adherence


def test_worked_example_ml_vs_programming():
    row = _row("ml-vs-programming")
    assert [len(doc) for doc in row["documents_sentences"]] == [3, 3]
    assert set(row["all_relevant_sentence_keys"]) == {"0b", "0c", "1a", "1b"}
    assert set(row["all_utilized_sentence_keys"]) == {"0b", "0c", "1a"}
    assert row["unsupported_response_sentence_keys"] == ["c"]
    scores = trace_scores(labels_from_row(row), 6)
    assert (scores.relevance, scores.utilization, scores.completeness, scores.adherence) == (4 / 6, 3 / 6, 0.75, 0.0)
    assert (row["relevance_score"], row["utilization_score"], row["completeness_score"]) == (4 / 6, 0.5, 0.75)
    assert row["adherence_score"] is False


def test_unlabeled_example_has_no_label_fields_and_null_scores():
    unlabeled = [r for r in ROWS if r["annotating_model_name"] is None]
    assert [r["id"] for r in unlabeled] == ["tech-005"]
    row = unlabeled[0]
    assert not LABEL_FIELDS & set(row)
    assert all(row[s] is None for s in SCORES)
    assert example_from_row(row).labels is None


def test_markup_example_carries_every_dangerous_string():
    texts = [doc for r in ROWS for doc in r["documents"]]
    for needle in ("<img src=x onerror=alert(1)>", "**bold**", "$5 and $6", "<script>alert(1)</script>"):
        assert any(needle in t for t in texts), needle


# -- the deliberate judge mistakes --------------------------------------------------------------------------


def test_mistake_hallucinated_sentence_marked_supported():
    row = _row("med-001")
    claim = _sentence(row, "c")
    assert "2,400 mg" in claim and not any("2,400" in d for d in row["documents"])
    assert _support(row, "c")["fully_supported"] is True and _support(row, "c")["supporting_sentence_keys"]
    assert row["unsupported_response_sentence_keys"] == [] and row["adherence_score"] is True


def test_mistake_relevant_sentence_missed():
    row = _row("med-002")
    assert "contagious for longer" in _sentence(row, "0c")
    assert "0c" not in row["all_relevant_sentence_keys"]
    assert row["completeness_score"] == 1.0


def test_mistake_utilized_key_not_relevant():
    row = _row("fin-001")
    assert "1c" in row["all_utilized_sentence_keys"] and "1c" not in row["all_relevant_sentence_keys"]
    assert all("1c" not in s["supporting_sentence_keys"] for s in row["sentence_support_information"])


def test_mistake_key_with_trailing_dot():
    row = _row("tech-001")
    assert "0b." in row["all_relevant_sentence_keys"] and "0b." in row["all_utilized_sentence_keys"]
    assert "0b." not in _context_keys(row) and "0b" in _context_keys(row)


def test_mistake_key_naming_no_sentence():
    row = _row("tech-004")
    assert len(row["documents_sentences"][1]) == 4
    assert parse_context_key("1f") == (1, 5)
    assert "1f" in row["all_relevant_sentence_keys"] and "1f" not in _context_keys(row)


def test_mistake_duplicate_key():
    row = _row("med-003", "llama-3.1-8b-instruct")
    assert Counter(row["all_relevant_sentence_keys"])["0b"] == 2


def test_mistake_general_in_key_lists():
    assert "general" in _row("fin-004")["all_relevant_sentence_keys"]
    assert _row("fin-004")["relevance_score"] == 1.0
    assert _support(_row("tech-003", "llama-3.1-8b-instruct"), "a")["supporting_sentence_keys"] == ["general"]


def test_mistake_unsupported_list_disagrees_with_per_sentence_support():
    row = _row("med-004")
    assert _support(row, "b")["fully_supported"] is False
    assert row["unsupported_response_sentence_keys"] == [] and row["adherence_score"] is True
    assert "14 days" in _sentence(row, "b") and "7 days" in _sentence(row, "0d")


def test_mistake_supported_sentence_marked_unsupported():
    row = _row("pol-002")
    assert "30 days" in _sentence(row, "b") and "30 days" in _sentence(row, "0c")
    assert _support(row, "b")["fully_supported"] is False
    assert row["adherence_score"] is False


def test_no_bogus_keys_outside_the_declared_mistakes():
    declared = {
        ("tech-001", "gpt-4o-mini"),
        ("tech-004", "llama-3.1-8b-instruct"),
        ("med-003", "llama-3.1-8b-instruct"),
        ("fin-004", "gpt-4o-mini"),
        ("tech-003", "llama-3.1-8b-instruct"),
    }
    for r in ROWS:
        if "all_relevant_sentence_keys" not in r or (r["id"], r["generation_model_name"]) in declared:
            continue
        valid = _context_keys(r)
        lists = [r["all_relevant_sentence_keys"], r["all_utilized_sentence_keys"]]
        lists += [s["supporting_sentence_keys"] for s in r["sentence_support_information"]]
        for keys in lists:
            assert set(keys) <= valid and len(set(keys)) == len(keys), r["id"]
        assert set(r["unsupported_response_sentence_keys"]) <= {k for k, _ in r["response_sentences"]}


def test_readme_describes_every_mistake():
    readme = (SAMPLE_DATA / "README.md").read_text(encoding="utf-8")
    mistakes = _generator().load_source()["mistakes"]
    for mistake in mistakes:
        assert f"`{mistake['id']}` / {mistake['model']} | {mistake['kind']}" in readme
    kinds = {mistake["kind"] for mistake in mistakes}
    for required in (
        "hallucinated sentence marked supported",
        "relevant sentence missed",
        "utilized key that is not relevant",
        "key with a trailing dot",
        "key naming no sentence",
        "duplicate key",
        "the word 'general' in a key list",
        "unsupported list disagrees with the per-sentence support",
    ):
        assert required in kinds


# -- through the real loader -------------------------------------------------------------------------------


def test_loader_reads_every_row_without_problems():
    loaders = pytest.importorskip("ragviz.data.load")
    result = loaders.load([str(SAMPLE_DATA)])
    assert [str(p) for p in result.errors] == []
    assert [str(p) for p in result.warnings] == []
    assert len(result.dataset) == len(ROWS)
    by_uid = {f"{r['dataset_name']}/{r['id']}/{r['generation_model_name']}": r for r in ROWS}
    assert set(result.dataset.uids) == set(by_uid)
    for i in range(len(result.dataset)):
        example = result.dataset.example(i)
        row = by_uid[example.uid]
        scores = trace_scores(example.labels, example.n_context_sentences)
        assert (scores.relevance, scores.utilization, scores.completeness) == (
            row["relevance_score"],
            row["utilization_score"],
            row["completeness_score"],
        ), example.uid
