"""Loaders: every format, the raw-format column aliases, every validation error, identity."""

from __future__ import annotations

import collections
import json
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragviz.data.load import load, load_bytes
from ragviz.data.model import Sentence
from ragviz.data.problems import MAX_PROBLEMS_PER_FIELD, Problem
from tests.ragbench_data import SUBSETS, require_ragbench, shard

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _row(i: int, **over) -> dict:
    """A small canonical, labelled RAGBench row."""
    row = {
        "id": f"r{i}",
        "question": f"Question {i}?",
        "documents": ["Alpha one. Alpha two.", "Beta one."],
        "response": "Answer one. Answer two.",
        "generation_model_name": "gen-a",
        "documents_sentences": [[["0a", "Alpha one."], ["0b", "Alpha two."]], [["1a", "Beta one."]]],
        "response_sentences": [["a", "Answer one."], ["b", "Answer two."]],
        "all_relevant_sentence_keys": ["0a", "1a"],
        "all_utilized_sentence_keys": ["0a"],
        "sentence_support_information": [
            {
                "explanation": "x",
                "fully_supported": True,
                "response_sentence_key": "a",
                "supporting_sentence_keys": ["0a"],
            },
            {
                "explanation": "y",
                "fully_supported": False,
                "response_sentence_key": "b",
                "supporting_sentence_keys": [],
            },
        ],
        "unsupported_response_sentence_keys": ["b"],
        "overall_supported": False,
    }
    row.update(over)
    return row


def _write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _strs(problems: list[Problem]) -> list[str]:
    return [str(p) for p in problems]


# -- Problem ----------------------------------------------------------------------------------
def test_problem_str_with_and_without_row():
    assert str(Problem("a.jsonl", 3, "documents", "bad")) == "a.jsonl:3: documents: bad"
    assert str(Problem("a.jsonl", None, "file", "empty file")) == "a.jsonl: file: empty file"


# -- formats -----------------------------------------------------------------------------------
def test_hf_layout_directory_names_subsets_after_folders(tmp_path):
    for subset, n in (("alpha", 2), ("beta", 3)):
        (tmp_path / subset).mkdir()
        pq.write_table(
            pa.Table.from_pylist([_row(i) for i in range(n)]), tmp_path / subset / "test-00000-of-00001.parquet"
        )
    (tmp_path / "README.md").write_text("not data")
    result = load([tmp_path])
    assert result.ok and not result.warnings
    assert len(result.dataset) == 5
    assert sorted(set(result.dataset.datasets)) == ["alpha", "beta"]
    ex = result.dataset.example(2)
    assert ex.dataset == "beta" and ex.source.row == 1 and ex.source.path.endswith("beta/test-00000-of-00001.parquet")
    assert ex.labels.relevant_keys == ("0a", "1a") and ex.labels.support[1].supported is False


def test_directory_of_parquet_files_uses_file_stems(tmp_path):
    pq.write_table(pa.Table.from_pylist([_row(0)]), tmp_path / "mine.parquet")
    pq.write_table(pa.Table.from_pylist([_row(1)]), tmp_path / "yours.parquet")
    result = load(tmp_path)
    assert result.ok and result.dataset.datasets == ["mine", "yours"]


def test_parquet_with_int_ids_and_raw_rows_goes_row_by_row(tmp_path):
    raw = [{"id": 1, "question": "Q?", "documents": ["One. Two."], "response": "Yes. No."}]
    pq.write_table(pa.Table.from_pylist(raw), tmp_path / "raw.parquet")
    result = load([tmp_path / "raw.parquet"])
    assert result.ok
    ex = result.dataset.example(0)
    assert (
        ex.id == "1" and [s.key for s in ex.document_sentences[0]] == ["0a", "0b"] and ex.response_keys() == ["a", "b"]
    )
    assert ex.labels is None


def test_parquet_with_wrong_column_type_reports_each_row(tmp_path):
    bad = [_row(0, documents="one string"), _row(1, documents="another")]
    pq.write_table(pa.Table.from_pylist(bad), tmp_path / "bad.parquet")
    result = load([tmp_path / "bad.parquet"])
    assert _strs(result.errors) == [
        f"{tmp_path / 'bad.parquet'}:1: documents: expected a list of strings, got str",
        f"{tmp_path / 'bad.parquet'}:2: documents: expected a list of strings, got str",
    ]
    assert len(result.dataset) == 0 and not result.ok


def test_parquet_with_null_inside_a_list_is_checked_row_by_row_like_jsonl(tmp_path):
    """The column-wise fast path used to take a null sentence key (read as the key 'None'), a null
    sentence text or a null document: rows the row-by-row checks reject, in Parquet as in JSONL."""
    null_key, null_text, null_doc, null_doc_list = _row(0), _row(1), _row(2, documents=["Alpha.", None]), _row(3)
    null_key["documents_sentences"][0][0][0] = None
    null_text["response_sentences"][1][1] = None
    null_doc_list["documents_sentences"][1] = None
    rows = [null_key, null_text, null_doc, null_doc_list, _row(4)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "nulls.parquet")
    _write_jsonl(tmp_path / "nulls.jsonl", rows)
    from_parquet, from_jsonl = load([tmp_path / "nulls.parquet"]), load([tmp_path / "nulls.jsonl"])
    errors = [(p.row, p.field, p.message) for p in from_parquet.errors]
    assert errors == [(p.row, p.field, p.message) for p in from_jsonl.errors]
    assert [row for row, _, _ in errors] == [1, 2, 3, 4]
    assert from_parquet.dataset.ids == ["r4"]


def test_ragas_jsonl_is_split_keyed_and_aliased():
    result = load([FIXTURES / "ragas.jsonl"])
    assert result.ok
    first, second = result.dataset.example(0), result.dataset.example(1)
    assert first.question == "When does water boil?"
    assert first.document_sentences[0] == (
        Sentence("0a", "Water boils at 100 degrees, e.g. at sea level."),
        Sentence("0b", "Fig. 3 shows the curve."),
    )
    assert first.document_sentences[1] == (Sentence("1a", "Dr. Smith measured 3.5 cm of steam."),)
    assert [s.text for s in first.response_sentences] == ["Water boils at 100 degrees.", "It needs heat."]
    assert first.reference_answer == "At 100 degrees Celsius at sea level."
    assert second.uid == "ragas/q2/model-x"
    # the row without an id: content hash, said in a warning, same id on every load
    assert first.id.startswith("h") and len(first.id) == 17
    assert _strs(result.warnings) == [
        f"{FIXTURES / 'ragas.jsonl'}:1: id: missing; using {first.id!r} derived from a hash of question, documents and response"
    ]
    assert load([FIXTURES / "ragas.jsonl"]).dataset.example(0).id == first.id


def test_deepeval_json_object_with_data_list():
    result = load([FIXTURES / "deepeval.json"])
    assert result.ok and not result.warnings
    ex = result.dataset.example(0)
    assert ex.id == "7" and ex.question.startswith("What is the capital")
    assert ex.documents == ("Paris is the capital of France.", "The U.S. capital is Washington.")
    assert ex.response_keys() == ["a", "b"]
    assert ex.reference_answer == "Paris"
    assert ex.retrieved_ids == ("11", "doc-2") and ex.relevant_ids == ("11",)


def test_json_rows_container_and_plain_list(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps({"rows": [_row(0)]}))
    (tmp_path / "b.json").write_text(json.dumps([_row(1), _row(2)]))
    result = load([tmp_path / "a.json", tmp_path / "b.json"])
    assert result.ok and result.dataset.ids == ["r0", "r1", "r2"]


def test_presplit_sentences_are_kept_exactly():
    result = load([FIXTURES / "presplit.json"])
    assert result.ok
    ex = result.dataset.example(0)
    assert ex.document_sentences[0] == (Sentence("0a", "  Kept exactly  "), Sentence("0b", "as given."))
    assert ex.response_sentences == (Sentence("a", "An answer, not re-split. Really."),)
    assert ex.documents == ("  Kept exactly   as given.", "Second doc.")
    assert ex.labels.relevant_keys == ("0a", "0b.")  # labels as stored; normalize() cleans them


def test_csv_json_text_and_pandas_literals():
    result = load([FIXTURES / "lists.csv"])
    assert result.ok, _strs(result.errors)
    first, second = result.dataset.example(0), result.dataset.example(1)
    assert first.question == "What, exactly?"
    assert [s.key for d in first.document_sentences for s in d] == ["0a", "0b", "1a"]
    assert first.reference_answer == ("this", "that")
    assert first.extra["relevance_score"] == 0.5
    assert second.documents == ("A doc written by pandas.",)
    assert second.reference_answer == ("yes",)  # a list column in the same file: strings become 1-item lists


def test_csv_bad_cells_name_row_and_field(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text('id,question,documents,response\n1,Q,"[""ok""]",R\n2,Q,"[broken",R\n3,Q,"[""x""]",R,extra\n')
    result = load([path])
    assert _strs(result.errors) == [
        f"{path}:2: documents: invalid JSON text: Expecting value (column 2)",
        f"{path}:3: csv: row has 5 fields, the header has 4",
    ]
    assert result.dataset.ids == ["1"]


def test_load_bytes_every_format():
    rows = [_row(0), _row(1)]
    buf = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(rows), buf)
    uploads = {
        "up.parquet": buf.getvalue().to_pybytes(),
        "up.jsonl": "".join(json.dumps(r) + "\n" for r in rows).encode(),
        "up.json": json.dumps(rows).encode(),
        "up.csv": b'id,question,documents,response\nr0,Q,"[""d""]",R\nr1,Q,"[""d""]",R\n',
    }
    for name, data in uploads.items():
        result = load_bytes(name, data)
        assert result.ok, (name, _strs(result.errors))
        assert result.dataset.ids == ["r0", "r1"] and result.dataset.datasets == ["up", "up"], name
        assert result.dataset.example(1).source.path == name
    assert _strs(load_bytes("notes.txt", b"hello").errors) == [
        "notes.txt: file: unknown extension '.txt' (expected one of .parquet, .jsonl, .ndjson, .json, .csv)"
    ]


def test_files_of_different_formats_load_together(tmp_path):
    pq.write_table(pa.Table.from_pylist([_row(0, reference_answer="one")]), tmp_path / "a.parquet")
    _write_jsonl(
        tmp_path / "b.jsonl",
        [{"id": "x", "question": "Q", "documents": ["D."], "response": "R.", "reference_answer": ["p", "q"]}],
    )
    result = load([tmp_path])
    assert result.ok, _strs(result.problems)
    assert len(result.dataset) == 2
    assert result.dataset.example(0).reference_answer == ("one",)
    assert result.dataset.example(1).reference_answer == ("p", "q")


# -- validation errors ---------------------------------------------------------------------------
def test_bad_rows_are_reported_and_good_rows_still_load():
    path = FIXTURES / "bad_rows.jsonl"
    result = load([path])
    assert not result.ok
    assert _strs(result.errors) == [
        f"{path}:2: documents: expected a list of strings, got str",
        f"{path}:3: question: missing required field",
        f"{path}:4: documents: missing required field (documents or documents_sentences)",
        f"{path}:5: response: missing required field (response or response_sentences)",
        f"{path}:6: question: expected a string, got int",
        f"{path}:6: documents: expected a list of strings, got int at position 1",
        f"{path}:7: row: expected an object, got list",
        f"{path}:9: all_relevant_sentence_keys: expected a list of strings, got str",
        f"{path}:10: json: truncated JSON line: Unterminated string starting at (column 54)",
    ]
    assert result.dataset.ids == ["ok1"]


@pytest.mark.parametrize("name", ["empty.jsonl", "empty.json", "empty.csv", "empty.parquet"])
def test_empty_file(tmp_path, name):
    (tmp_path / name).write_bytes(b"" if "parquet" in name else b"  \n")
    assert _strs(load([tmp_path / name]).errors) == [f"{tmp_path / name}: file: empty file"]


def test_non_utf8_names_byte_offset(tmp_path):
    good = json.dumps(_row(0)).encode() + b"\n"
    (tmp_path / "a.jsonl").write_bytes(good + b'{"id": "caf\xe9"}\n' + json.dumps(_row(2)).encode())
    result = load([tmp_path / "a.jsonl"])
    assert _strs(result.errors) == [
        f"{tmp_path / 'a.jsonl'}:2: encoding: not UTF-8: byte 0xe9 at byte offset {len(good) + 11}; save it as UTF-8"
    ]
    assert result.dataset.ids == ["r0", "r2"]
    (tmp_path / "b.json").write_bytes(b'[{"id": "\xff"}]')
    assert _strs(load([tmp_path / "b.json"]).errors) == [
        f"{tmp_path / 'b.json'}: encoding: not UTF-8: byte 0xff at byte offset 9 (line 1); save it as UTF-8"
    ]
    # a whole file decoded at once (JSON, CSV) has no row to name: the message names the line
    (tmp_path / "c.csv").write_bytes(b'id,question,documents,response\nok,q,"[""d""]",r\n1,caf\xe9,"[""d""]",r\n')
    assert _strs(load([tmp_path / "c.csv"]).errors) == [
        f"{tmp_path / 'c.csv'}: encoding: not UTF-8: byte 0xe9 at byte offset 53 (line 3); save it as UTF-8"
    ]


def test_truncated_json_list_keeps_complete_records(tmp_path):
    text = json.dumps([_row(0), _row(1)])
    (tmp_path / "t.json").write_text(text[: text.index('"r1"') + 10])
    result = load([tmp_path / "t.json"])
    assert len(result.errors) == 1
    assert str(result.errors[0]).startswith(f"{tmp_path / 't.json'}:2: json: truncated JSON: ")
    assert str(result.errors[0]).endswith("; 1 records before it were loaded")
    assert result.dataset.ids == ["r0"]


def test_json_of_wrong_shape(tmp_path):
    (tmp_path / "o.json").write_text('{"question": "q"}')
    (tmp_path / "s.json").write_text('"just a string"')
    assert _strs(load([tmp_path / "o.json"]).errors) == [
        f'{tmp_path / "o.json"}: json: expected a list of rows or an object with a "data" or "rows" list, got an object with keys [\'question\']'
    ]
    assert _strs(load([tmp_path / "s.json"]).errors) == [
        f"{tmp_path / 's.json'}: json: expected a list of rows, got str"
    ]


def test_unreadable_parquet_unknown_extension_missing_path(tmp_path):
    (tmp_path / "x.parquet").write_bytes(b"PAR1 this is not parquet")
    (tmp_path / "x.xlsx").write_bytes(b"zip")
    result = load([tmp_path / "x.parquet", tmp_path / "x.xlsx", tmp_path / "missing.jsonl"])
    messages = _strs(result.errors)
    assert messages[0] == f"{tmp_path / 'missing.jsonl'}: path: no such file or directory"
    assert messages[1].startswith(f"{tmp_path / 'x.parquet'}: file: unreadable Parquet: ")
    assert (
        messages[2]
        == f"{tmp_path / 'x.xlsx'}: file: unknown extension '.xlsx' (expected one of .parquet, .jsonl, .ndjson, .json, .csv)"
    )
    empty_dir = tmp_path / "nothing"
    empty_dir.mkdir()
    assert _strs(load([empty_dir]).errors) == [
        f"{empty_dir}: path: no .parquet, .jsonl, .ndjson, .json, .csv files in this directory"
    ]


def test_wrong_types_in_label_fields(tmp_path):
    rows = [
        _row(0, sentence_support_information=[{"response_sentence_key": "a", "fully_supported": "yes"}]),
        _row(1, overall_supported="true"),
        _row(2, documents_sentences=[["0a", "flat pair instead of a document"]]),
        _row(3, relevance_score="high"),
    ]
    path = _write_jsonl(tmp_path / "l.jsonl", rows)
    result = load([path])
    assert _strs(result.errors) == [
        f"{path}:1: sentence_support_information: entry 0: fully_supported: expected true, false or null, got str",
        f"{path}:2: overall_supported: expected true, false or null, got str",
        f'{path}:3: documents_sentences: document 0: expected a list of [key, text] pairs, got "0a" at position 0',
    ]
    assert _strs(result.warnings) == [f"{path}:4: relevance_score: expected a number, got str; ignored"]
    assert result.dataset.ids == ["r3"]


def test_problem_list_is_capped_per_field(tmp_path):
    path = _write_jsonl(
        tmp_path / "many.jsonl", [{"id": str(i), "documents": ["d"], "response": "r"} for i in range(50)]
    )
    result = load([path])
    assert len(result.errors) == MAX_PROBLEMS_PER_FIELD + 1
    assert (
        str(result.errors[-1])
        == f"{path}: question: ... and {50 - MAX_PROBLEMS_PER_FIELD} more errors in this field not listed"
    )


# -- identity ----------------------------------------------------------------------------------
def test_duplicate_uid_warns_naming_both_rows_and_keeps_first(tmp_path):
    path = _write_jsonl(
        tmp_path / "d.jsonl", [_row(0), _row(1), _row(0, question="changed"), _row(0, generation_model_name="gen-b")]
    )
    result = load([path])
    assert result.ok
    assert _strs(result.warnings) == [
        f"{path}:3: id: duplicate of {path}:1 (same dataset, id and generation model); kept the first, skipped this row"
    ]
    assert result.dataset.uids == ["d/r0/gen-a", "d/r1/gen-a", "d/r0/gen-b"]
    assert result.dataset.example(0).question == "Question 0?"


def test_same_path_given_twice_loads_once(tmp_path):
    path = _write_jsonl(tmp_path / "d.jsonl", [_row(0)])
    result = load([path, tmp_path])
    assert len(result.dataset) == 1 and result.ok
    assert _strs(result.warnings) == [f"{path}: path: given more than once; loaded once"]


# -- the real RAGBench shards --------------------------------------------------------------------
@pytest.mark.conformance
def test_all_seven_shards_load_fast_and_clean(capsys):
    root = require_ragbench()
    load([shard(SUBSETS[0])])  # warm the file cache and imports
    start, cpu_start = time.perf_counter(), time.process_time()
    result = load([root])
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    with capsys.disabled():
        print(f"\nloaded {len(result.dataset)} RAGBench rows from 7 shards in {seconds:.3f} s ({cpu:.3f} s CPU)")
    assert result.ok and not result.warnings, _strs(result.problems)[:5]
    assert len(result.dataset) == 2896
    assert sorted({Path(p).parent.name for p in result.dataset.table.column("_path").to_pylist()}) == list(SUBSETS)
    # CPU, not wall: ~0.3 s CPU (0.5 s wall) here; a busy box's wall time (2.3 s at load 12) says nothing of ours
    assert cpu < 1.0


@pytest.mark.conformance
def test_repeated_ids_load_as_distinct_examples():
    root = require_ragbench()
    dataset = load([root]).dataset
    per_id = collections.Counter(zip(dataset.datasets, dataset.ids))
    repeated = {key for key, n in per_id.items() if n > 1}
    assert len(repeated) == 158
    rows = [i for i, key in enumerate(zip(dataset.datasets, dataset.ids)) if key in repeated]
    assert len(rows) == 316
    assert len({dataset.uids[i] for i in rows}) == 316
    for i in rows[:20]:
        ex = dataset.example(i)
        assert dataset.index_of(ex.uid) == i


# -- never raises ------------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "question",
                    "documents",
                    "response",
                    "documents_sentences",
                    "response_sentences",
                    "all_relevant_sentence_keys",
                    "sentence_support_information",
                    "contexts",
                    "answer",
                    "x",
                ]
            ),
            inner,
            max_size=6,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["f.jsonl", "f.json", "f.csv", "f.parquet"]), st.binary(max_size=300))
def test_garbage_bytes_never_raise(name, data):
    result = load_bytes(name, data)
    assert all(str(p).startswith(name) for p in result.problems)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_JSONISH, max_size=4))
def test_any_json_rows_load_or_report_never_raise(rows):
    for name, data in (("r.json", json.dumps(rows)), ("r.jsonl", "\n".join(json.dumps(r) for r in rows))):
        result = load_bytes(name, data.encode())
        loaded = len(result.dataset)
        assert loaded <= len(rows)
        for example in result.dataset:  # whatever loaded builds a full example
            assert example.uid


def test_csv_documents_as_plain_text_is_a_type_error(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("question,documents,response\nQ,just one document,R\n")
    assert _strs(load([path]).errors) == [f"{path}:1: documents: expected a list of strings, got str"]


def test_deep_nesting_without_a_run_of_openings_goes_row_by_row(tmp_path):
    """Arrow's JSON reader is never handed a line nested 100 deep, however the openings are spaced
    (``[1,[1,...``, keys with brackets in them, escaped quotes), and a file of shallow lines whose strings
    hold brackets and escaped quotes still loads column-wise."""
    from ragviz.data.formats.json_depth import _lines_shallow

    row = {"id": "a", "question": "q", "documents": ["Paris is in France."], "response": "Paris."}
    deep = json.dumps(row)[:-1] + ', "extra": ' + "[1," * 150 + "1" + "]" * 150 + "}"
    assert not _lines_shallow((json.dumps(row) + "\n" + deep + "\n").encode(), 100)
    tricky = {**row, "question": 'q "[[[[" \\" {{{{ \\\\', "documents": ['] ] ]] {{ \\\\ " [[' * 40]}
    text = (json.dumps(tricky) + "\n") * 3
    assert _lines_shallow(text.encode(), 100)
    assert not _lines_shallow(b'{"a": [[' + b'{"k": ' * 99 + b"1" + b"}" * 99 + b"]]}\n", 100)
    assert not _lines_shallow(b'{"a": "unterminated}\n', 100)
    path = tmp_path / "deep.jsonl"  # as deep as Python's parser refuses too: reported by row and field
    deeper = json.dumps(row)[:-1] + ', "extra": ' + "[1," * 100_000 + "1" + "]" * 100_000 + "}"
    path.write_text(json.dumps(row) + "\n" + deeper + "\n")
    assert [str(e) for e in load([path]).errors] == [
        f"{path}:2: extra: nested deeper than 100 levels: too deep to read; row skipped"
    ]


def test_only_lines_that_open_many_brackets_are_walked_for_their_depth():
    """A line opening fewer brackets than the limit cannot nest that deep, so only the lines opening more are walked
    (alone when few, the whole block when most): a deep line is found among shallow ones wherever it sits (the last
    line without its newline too), and wide or bracket-quoting lines stay shallow."""
    from ragviz.data.formats.json_depth import MAX_DEPTH, lines_of

    row = {"id": "a", "question": "q", "documents": ["Paris is in France."], "response": "Paris."}
    shallow = json.dumps(row)
    wide = json.dumps({**row, "extra": [[k] for k in range(2 * MAX_DEPTH)]})  # 201 openings, 2 deep
    quoting = json.dumps({**row, "question": "[" * (2 * MAX_DEPTH)})  # openings inside a string
    deep = shallow[:-1] + ', "extra": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}"
    work = np.full(1 << 16, 0xFF, np.uint8)  # as the streamed check calls it: a view of the file, a reused buffer
    for lines in ([shallow] * 6 + [wide, quoting], [wide, quoting] * 4, [wide] * 3 + [shallow]):
        text = "\n".join(lines)
        assert lines_of((text + "\n").encode()) == (len(lines), max(map(len, lines)))
        assert lines_of(text.encode()) == (len(lines), max(map(len, lines)))
        assert lines_of(memoryview(text.encode()), None, work) == (len(lines), max(map(len, lines)))
    for lines in ([shallow] * 6 + [deep, wide], [shallow] * 7 + [deep], [wide] * 4 + [deep], [deep]):
        text = "\n".join(lines)
        assert lines_of(text.encode()) is None
        assert lines_of((text + "\n").encode()) is None
        assert lines_of(memoryview(text.encode()), None, work) is None


def test_the_bracket_walk_in_a_work_buffer_decides_as_the_table_lookup_does():
    """The streamed check finds quotes, backslashes, brackets and newlines by compares in a reused buffer (``|`` comes
    along, folded onto the backslash); on lines mixing every one of them, escaped or not, nested or not, it decides
    exactly as the byte table does."""
    import random

    from ragviz.data.formats.json_depth import _lines_shallow

    rng = random.Random(38)
    alphabet = list('[]{}"\\|\n') + ["a", " ", ",", ":", "é", '\\"', "[[", "]]"]
    work = np.full(1 << 14, 0xAA, np.uint8)
    verdicts = set()
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 300))).encode()
        for limit in (2, 5, 100):
            plain = _lines_shallow(text, limit)
            assert _lines_shallow(text, limit, work) == plain
            assert _lines_shallow(memoryview(text), limit, work) == plain
            verdicts.add(plain)
    assert verdicts == {True, False}


def test_loading_tells_rows_read_per_file_and_reads_the_same(tmp_path, monkeypatch):
    """Large Parquet and JSON Lines files report rows read / rows in the file as they are read (the Data page's bar);
    a JSON Lines file whose later block does not fit the first block's types is read whole, as before."""
    import pyarrow.parquet as pq

    from ragviz.data.formats import json_rows, parquet_rows

    rows = [
        {"id": f"r{i}", "question": "q", "documents": ["A. B."], "response": "A.", "relevance_score": 0.5}
        for i in range(300)
    ]
    rows[250]["relevance_score"] = 1  # an integer late in the file: the first block's type is double
    rows[260]["dataset_name"] = "late"  # a field the first block does not have
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    whole = load([jsonl]).dataset.table
    monkeypatch.setattr(json_rows, "_CHUNK", 4096)
    told: list[tuple[str, int, int]] = []
    blockwise = load([jsonl], progress=lambda what, done, total: told.append((what, done, total))).dataset.table
    assert blockwise.equals(whole)
    rows[260].pop("dataset_name")
    rows[250]["relevance_score"] = 0.25
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    told.clear()
    streamed = load([jsonl], progress=lambda what, done, total: told.append((what, done, total))).dataset
    monkeypatch.setattr(json_rows, "_CHUNK", 1 << 22)
    assert streamed.table.equals(load([jsonl]).dataset.table)
    assert len(told) > 3 and told[-1] == ("Reading rows.jsonl", 300, 300)
    assert [done for _, done, _ in told] == sorted(done for _, done, _ in told)

    parquet = tmp_path / "rows.parquet"
    pq.write_table(streamed.table.drop_columns(["_subset", "_path", "_row"]), parquet, row_group_size=100)
    monkeypatch.setattr(parquet_rows, "SPILL_BYTES", 0)  # read as a file over the cap is: batch by batch
    monkeypatch.setattr(parquet_rows, "_BATCH_BYTES", 1000)
    told.clear()
    result = load([parquet], progress=lambda what, done, total: told.append((what, done, total)))
    assert result.ok and len(result.dataset) == 300 and told[-1] == ("Reading rows.parquet", 300, 300)
    assert len(told) > 3 and result.dataset.ids == streamed.ids


def test_a_line_too_deep_for_arrow_far_into_a_streamed_file_is_reported_by_row(tmp_path, monkeypatch):
    """The JSON Lines file is checked a chunk at a time as Arrow's reader goes: a line nested past what Arrow's parser
    survives (100,000 deep), many chunks after Arrow started, never reaches it; the row-by-row path loads every other
    row and names the deep one by row and field, and the progress bar still ends at the file's rows."""
    from ragviz.data.formats import json_rows, parquet_rows

    rows = [
        {"id": f"r{i}", "question": "q", "documents": ["A. B."], "response": "A.", "relevance_score": 0.5}
        for i in range(40)
    ]
    lines = [json.dumps(r) for r in rows]
    lines[29] = lines[29][:-1] + ', "extra": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    monkeypatch.setattr(json_rows, "_CHUNK", 300)  # a row or two a chunk: the deep one is some 20 chunks in
    monkeypatch.setattr(parquet_rows, "SPILL_BYTES", 0)
    told: list[tuple[int, int]] = []
    result = load([path], progress=lambda what, done, total: told.append((done, total)))
    assert [str(e) for e in result.errors] == [
        f"{path}:30: extra: nested deeper than 100 levels: too deep to read; row skipped"
    ]
    assert result.dataset.ids == [f"r{i}" for i in range(40) if i != 29]
    shallow = path.with_name("shallow.jsonl")
    shallow.write_text("".join(json.dumps(r) + "\n" for r in rows))
    told.clear()
    assert load([shallow], progress=lambda what, done, total: told.append((done, total))).dataset.ids == [
        f"r{i}" for i in range(40)
    ]
    assert len(told) > 5 and told[-1] == (40, 40) and all(done <= total for done, total in told)


def test_a_jsonl_file_cut_short_while_it_loads_ends_the_checked_stream_not_the_process(tmp_path):
    """A file written over in place while the app loads it (an export to the same path): the stream reads each chunk
    into bytes of its own and ends as a failed chunk does when the file shrank (a memory map of it killed the whole
    server with SIGBUS on the first page past the new end); the lines of a longer-than-chunk line are read whole."""
    from ragviz.data.formats.json_depth import CheckedLines

    lines = [json.dumps({"id": f"r{i}", "pad": "x" * (50 + i % 7)}) + "\n" for i in range(400)]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(lines))
    whole = CheckedLines(path, 4096)
    read = b"".join(iter(lambda: bytes(whole.read()), b""))
    whole.close()
    assert read == path.read_bytes() and whole.lines == 400 and whole.ended and not whole.failed
    stream = CheckedLines(path, 4096)
    first = bytes(stream.read())
    assert first and first.endswith(b"\n") and not stream.failed
    with path.open("r+b") as f:
        f.truncate(len(first) + 100)  # cut inside the next chunk
    assert bytes(stream.read()) == b"" and stream.failed and stream.lines == first.count(b"\n")
    stream.close()
    long = tmp_path / "long.jsonl"
    long.write_text(json.dumps({"id": "a", "pad": "y" * 10_000}) + "\n" + json.dumps({"id": "b"}) + "\n")
    stream = CheckedLines(long, 1024)
    assert bytes(stream.read()) == long.read_bytes().splitlines(keepends=True)[0]
    assert bytes(stream.read()).startswith(b'{"id": "b"') and bytes(stream.read()) == b""
    stream.close()
    assert stream.lines == 2 and not stream.failed


def test_a_large_jsonl_file_is_decoded_into_a_mapped_arrow_file_and_reads_the_same(tmp_path, monkeypatch):
    """A JSON Lines file over the spill size is decoded block by block into a memory-mapped Arrow file, as a large
    Parquet file is: the same table as read in memory, also when a later block does not fit the first's types (then
    it is read whole, as before), and nothing of the spill is left beside the file."""
    from ragviz.data.formats import json_rows, parquet_rows

    rows = [
        {"id": f"r{i}", "question": "q", "documents": ["A. B."], "response": "A.", "relevance_score": 0.5}
        for i in range(300)
    ]
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    in_memory = load([jsonl]).dataset.table
    monkeypatch.setattr(json_rows, "_CHUNK", 1000)
    monkeypatch.setattr(parquet_rows, "SPILL_BYTES", 0)
    spilled = load([jsonl]).dataset.table
    assert spilled.equals(in_memory)
    rows[250]["relevance_score"] = 1  # an integer late in the file: the first block's type is double
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load([jsonl]).dataset.ids == [f"r{i}" for i in range(300)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.jsonl"]


@pytest.mark.parametrize(
    ("column", "values", "problem"),
    [
        ("documents", pa.array([[1, 2], [3]]), "documents: expected a list of strings, got int at position 0"),
        ("id", pa.array([1.5, float("nan")]), "id: expected a string or integer, got float"),
        ("generation_model_name", pa.array([5, 6]), "generation_model_name: expected a string, got int"),
        ("all_relevant_sentence_keys", pa.array([[0], [1]]), "all_relevant_sentence_keys: expected a list of strings, got int at position 0"),
    ],
)  # fmt: skip
def test_a_parquet_column_of_another_type_is_refused_by_row_as_in_json_lines(tmp_path, column, values, problem):
    """Read column-wise, Arrow cast numbers to text (ids 1.5 and 'nan', documents '1', '2'): Parquet rows loaded that
    the same rows as JSON Lines are refused for."""
    table = pa.Table.from_pylist([_row(0), _row(1)])
    path = tmp_path / "rows.parquet"
    pq.write_table(table.set_column(table.column_names.index(column), column, values), path)
    result = load([path])
    assert _strs(result.errors) == [f"{path}:1: {problem}", f"{path}:2: {problem}"]
    lines = tmp_path / "rows.jsonl"
    lines.write_text("".join(json.dumps({**_row(i), column: values[i].as_py()}) + "\n" for i in range(2)))
    assert [p.removeprefix(f"{lines}") for p in _strs(load([lines]).errors)] == [f":1: {problem}", f":2: {problem}"]


def test_parquet_with_integer_ids_and_dictionary_text_still_loads(tmp_path):
    table = pa.Table.from_pylist([_row(0), _row(1)])
    table = table.set_column(0, "id", pa.array([7, 8]))
    table = table.set_column(1, "question", table.column("question").dictionary_encode())
    pq.write_table(table, tmp_path / "rows.parquet")
    result = load([tmp_path / "rows.parquet"])
    assert result.ok and result.dataset.ids == ["7", "8"]
