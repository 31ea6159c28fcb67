"""OpenInference spans → ragviz rows (issue 37, items 1, 2, 7): the mapping rules, OTLP / span-dump files, and
the side-car column through validate, convert and export (JSONL and Parquet)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ragviz.cli.main import main
from ragviz.data.errors import BadInput
from ragviz.data.formats.openinference import SIDECAR, Skipped, Span, map_traces, trace_row
from ragviz.data.formats.otlp import read_span_files
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore

T = "0af7651916cd43dd8448eb211c80319c"


def span(span_id: str, kind: str, start: int, parent: str | None = "r", name: str = "", **attributes) -> Span:
    attrs = {"openinference.span.kind": kind, **{k.replace("__", "."): v for k, v in attributes.items()}}
    return Span(T, span_id, parent, name or kind.lower(), kind, start, attrs)


def documents(*texts: str, **extra) -> dict:
    out = {}
    for i, text in enumerate(texts):
        out[f"retrieval.documents.{i}.document.content"] = text
        out[f"retrieval.documents.{i}.document.id"] = f"d{i}"
        out[f"retrieval.documents.{i}.document.score"] = 1.0 - i / 10
    out.update(extra)
    return out


def retriever(span_id: str, start: int, *texts: str, name: str = "retrieve") -> Span:
    return Span(
        T, span_id, "r", name, "RETRIEVER", start, {"openinference.span.kind": "RETRIEVER", **documents(*texts)}
    )


def root(start: int = 0, output: str | None = "It is blue. Mostly.") -> Span:
    attrs = {"openinference.span.kind": "CHAIN", "input.value": "What colour is the sky?"}
    if output is not None:
        attrs["output.value"] = output
    return Span(T, "r", None, "rag", "CHAIN", start, attrs)


def llm(start: int, output: str = "From the LLM. Really.") -> Span:
    attrs = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o-mini", "output.value": output}
    return Span(T, "l", "r", "llm", "LLM", start, attrs)


def test_a_trace_becomes_a_row_with_its_side_car():
    row = trace_row([root(), retriever("a", 1, "Sky is blue.", "Grass is green."), llm(2)], "proj")
    assert not isinstance(row, Skipped)
    assert (row["id"], row["question"], row["response"]) == (T, "What colour is the sky?", "It is blue. Mostly.")
    assert row["documents"] == ["Sky is blue.", "Grass is green."]
    assert (row["dataset_name"], row["generation_model_name"]) == ("proj", "gpt-4o-mini")
    side = row[SIDECAR]
    assert (side["trace_id"], side["root_span_id"], side["retriever_span_id"], side["llm_span_id"]) == (
        T,
        "r",
        "a",
        "l",
    )
    assert side["response_span_id"] == "r"
    assert [(d["position"], d["id"], d["score"]) for d in side["documents"]] == [(0, "d0", 1.0), (1, "d1", 0.9)]


def test_documents_keep_position_order_and_repeats():
    texts = [f"Document number {i}." for i in range(12)]
    texts[5] = texts[3]  # a repeated document stays, in its place
    attrs = documents(*texts)
    shuffled = dict(sorted(attrs.items(), key=lambda kv: kv[0][::-1]))  # attribute order says nothing
    spans = [root(), Span(T, "a", "r", "retrieve", "RETRIEVER", 1, shuffled), llm(2)]
    row = trace_row(spans, "proj")
    assert not isinstance(row, Skipped)
    assert row["documents"] == texts
    assert [d["position"] for d in row[SIDECAR]["documents"]] == list(range(12))


def test_document_position_is_the_first_digit_of_its_keys(tmp_path):
    rows = map_traces([root(), retriever("a", 1, "Sky is blue. It is far.", "Grass is green."), llm(2)]).rows
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n")
    example = load([str(path)]).dataset.example(0)
    assert [[s.key for s in doc] for doc in example.document_sentences] == [["0a", "0b"], ["1a"]]


def test_the_last_retriever_before_the_llm_span_and_the_named_one():
    spans = [
        root(),
        retriever("a", 1, "First retriever's document.", name="vector"),
        retriever("b", 2, "Second retriever's document.", name="keyword"),
        llm(3),
        retriever("c", 4, "A retriever after the answer.", name="late"),
    ]
    chosen = trace_row(spans, "p")
    assert not isinstance(chosen, Skipped) and chosen[SIDECAR]["retriever_span_id"] == "b"
    named = trace_row(spans, "p", retriever_span="vector")
    assert not isinstance(named, Skipped) and named["documents"] == ["First retriever's document."]
    assert trace_row(spans, "p", retriever_span="nope") == Skipped(T, "no span named 'nope'")


def test_the_response_falls_back_to_the_llm_span_and_json_inputs_are_read():
    spans = [root(output=None), retriever("a", 1, "Doc."), llm(2, "The LLM's answer.")]
    row = trace_row(spans, "p")
    assert not isinstance(row, Skipped)
    assert row["response"] == "The LLM's answer." and row[SIDECAR]["response_span_id"] == "l"
    as_json = Span(
        T, "r", None, "chain", "CHAIN", 0,
        {"input.value": json.dumps({"query": "Asked as JSON?"}), "input.mime_type": "application/json",
         "output.value": json.dumps({"output": "Answered."}), "output.mime_type": "application/json"},
    )  # fmt: skip
    row = trace_row([as_json, retriever("a", 1, "Doc.")], "p")
    assert not isinstance(row, Skipped) and (row["question"], row["response"]) == ("Asked as JSON?", "Answered.")


def test_traces_that_cannot_be_rows_are_skipped_with_the_reason():
    no_docs = Span(T, "a", "r", "retrieve", "RETRIEVER", 1, {"openinference.span.kind": "RETRIEVER"})
    gap = Span(T, "a", "r", "retrieve", "RETRIEVER", 1, documents("Zero.", "One.", "Two."))
    gap_attrs = dict(gap.attributes)
    del gap_attrs["retrieval.documents.1.document.content"]
    gap = Span(T, "a", "r", "retrieve", "RETRIEVER", 1, gap_attrs)
    assert trace_row([root(), llm(2)], "p") == Skipped(T, "no retriever span")
    assert "has no documents" in trace_row([root(), no_docs, llm(2)], "p").reason  # type: ignore[union-attr]
    assert "document 1 has no content" in trace_row([root(), gap, llm(2)], "p").reason  # type: ignore[union-attr]
    no_answer = trace_row([root(output=None), retriever("a", 1, "Doc.")], "p")
    assert isinstance(no_answer, Skipped) and "no response" in no_answer.reason


def _otlp_request(trace_hex: str, encode=lambda x: x) -> dict:
    def attrs(d):
        return [
            {"key": k, "value": {"stringValue": v} if isinstance(v, str) else {"doubleValue": v}} for k, v in d.items()
        ]

    spans = [
        {"traceId": encode(trace_hex), "spanId": encode("00000000000000aa"), "name": "rag",
         "startTimeUnixNano": "100", "attributes": attrs({"openinference.span.kind": "CHAIN",
                                                          "input.value": "Q?", "output.value": "A."})},
        {"traceId": encode(trace_hex), "spanId": encode("00000000000000bb"), "parentSpanId": encode("00000000000000aa"),
         "name": "retrieve", "startTimeUnixNano": "200",
         "attributes": attrs({"openinference.span.kind": "RETRIEVER", **documents("Doc zero.", "Doc one.")})},
    ]  # fmt: skip
    resource = {"attributes": [{"key": "openinference.project.name", "value": {"stringValue": "shop"}}]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]}


def test_otlp_json_with_hex_or_base64_ids_and_json_lines(tmp_path):
    hexed = tmp_path / "hex.json"
    hexed.write_text(json.dumps(_otlp_request(T)))
    b64 = tmp_path / "b64.jsonl"
    b64.write_text(json.dumps(_otlp_request(T, lambda h: base64.b64encode(bytes.fromhex(h)).decode())) + "\n")
    for path in (hexed, b64):
        mapped = map_traces(read_span_files([str(path)]))
        assert [r["id"] for r in mapped.rows] == [T]
        assert mapped.rows[0]["dataset_name"] == "shop" and mapped.rows[0]["documents"] == ["Doc zero.", "Doc one."]
        assert mapped.rows[0][SIDECAR]["retriever_span_id"] == "00000000000000bb"


def test_span_dumps_one_per_line(tmp_path):
    """OpenTelemetry's console exporter (``0x`` ids, ISO times, flat attributes) and Phoenix's REST spans."""
    console = [
        {"name": "rag", "context": {"trace_id": "0x" + T, "span_id": "0x00000000000000aa"}, "parent_id": None,
         "start_time": "2026-11-28T10:00:00.000001Z", "attributes": {"openinference.span.kind": "CHAIN",
                                                                    "input.value": "Q?", "output.value": "A."}},
        {"name": "retrieve", "context": {"trace_id": "0x" + T, "span_id": "0x00000000000000bb"},
         "parent_id": "0x00000000000000aa", "start_time": "2026-11-28T10:00:00.000002Z",
         "attributes": {"openinference.span.kind": "RETRIEVER", **documents("Doc zero.")}},
    ]  # fmt: skip
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in console))
    rows = map_traces(read_span_files([str(path)]), "mine").rows
    assert [(r["id"], r["dataset_name"], r["documents"]) for r in rows] == [(T, "mine", ["Doc zero."])]


def test_bad_span_files_name_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(_otlp_request(T)) + "\n{not json\n")
    with pytest.raises(BadInput, match=r"bad.jsonl:2: not JSON"):
        read_span_files([str(bad)])
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"name": "no ids"}\n')
    assert main(["import", "otlp", str(odd), "-o", str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{odd}:1: not an OTLP request or a span: no 'trace_id'"]
    assert not (tmp_path / "out.jsonl").exists()


def _imported(tmp_path: Path) -> Path:
    request = _otlp_request(T)
    spans = request["resourceSpans"][0]["scopeSpans"][0]["spans"]
    other = json.loads(json.dumps(spans).replace(T, "1" * 32))
    del other[1]["attributes"][-2:]  # the second trace's last document has no id and no score
    spans.extend(other)
    src = tmp_path / "spans.json"
    src.write_text(json.dumps(request))
    out = tmp_path / "rows.jsonl"
    assert main(["import", "otlp", str(src), "-o", str(out)]) == 0
    return out


def test_side_car_survives_validate_convert_and_export(tmp_path, capsys):
    rows = _imported(tmp_path)
    side = {json.loads(line)["id"]: json.loads(line)[SIDECAR] for line in rows.read_text().splitlines()}
    assert side["1" * 32]["documents"][1]["score"] is None  # a field null in one row
    assert main(["validate", str(rows)]) == 0
    for out in ("c.jsonl", "c.parquet"):
        assert main(["convert", str(rows), "-o", str(tmp_path / out)]) == 0
    as_jsonl = {
        json.loads(line)["id"]: json.loads(line)[SIDECAR] for line in (tmp_path / "c.jsonl").read_text().splitlines()
    }
    assert as_jsonl == side
    table = pq.read_table(tmp_path / "c.parquet")
    assert dict(zip(table.column("id").to_pylist(), table.column(SIDECAR).to_pylist())) == side
    db = tmp_path / "labels.db"
    LabelStore(str(db)).close()
    for out in ("e.jsonl", "e.parquet"):  # the store's export (Parquet streamed batch by batch)
        assert main(["export", str(rows), "--db", str(db), "-o", str(tmp_path / out)]) == 0
    exported = {
        json.loads(line)["id"]: json.loads(line)[SIDECAR] for line in (tmp_path / "e.jsonl").read_text().splitlines()
    }
    assert exported == side
    table = pq.read_table(tmp_path / "e.parquet")
    assert dict(zip(table.column("id").to_pylist(), table.column(SIDECAR).to_pylist())) == side
    capsys.readouterr()


def test_parquet_export_of_a_list_of_structs_with_an_always_null_field(tmp_path, capsys):
    """Item 7: pyarrow 26 broke such a column when it was cast to its own type (ArrowInvalid traceback)."""
    rows = _imported(tmp_path)
    assert all(
        d["metadata"] is None for line in rows.read_text().splitlines() for d in json.loads(line)[SIDECAR]["documents"]
    )
    assert main(["convert", str(rows), "-o", str(tmp_path / "out.parquet")]) == 0
    documents_field = pq.read_table(tmp_path / "out.parquet").column(SIDECAR).to_pylist()[0]["documents"]
    assert [d["metadata"] for d in documents_field] == [None, None]
    assert "Traceback" not in capsys.readouterr().err


def test_a_document_score_not_a_finite_number_skips_the_trace_naming_span_document_and_field(tmp_path, capsys):
    """A score is side-car metadata, but ``float('high')`` was a traceback and ``NaN`` was written as bare NaN."""
    for score, why in (("high", "'high' is not a number"), ("nan", "'nan' is not a finite number")):
        attrs = documents("Zero.", "One.")
        attrs["retrieval.documents.1.document.score"] = score
        docs = Span(T, "a", "r", "retrieve", "RETRIEVER", 1, {"openinference.span.kind": "RETRIEVER", **attrs})
        reason = f"retriever span 'retrieve' (a): document 1: document.score {why}"
        assert trace_row([root(), docs, llm(2)], "p") == Skipped(T, reason)
    request = _otlp_request(T)
    retrieve = request["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    retrieve["attributes"].append({"key": "retrieval.documents.0.document.score", "value": {"stringValue": "high"}})
    src = tmp_path / "spans.json"
    src.write_text(json.dumps(request))
    out = tmp_path / "rows.jsonl"
    assert main(["import", "otlp", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{src}: trace {T}: skipped: retriever span 'retrieve' (00000000000000bb): document 0: document.score" in err
    assert "Traceback" not in err and not out.exists()


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, "[" * 985 + "{}" + "]" * 985])
def test_a_span_file_nested_too_deep_is_bad_input_naming_file_and_line(tmp_path, text):
    """``json.loads`` (or walking what it read) raised RecursionError, a traceback from ``ragviz import otlp``."""
    deep = tmp_path / "deep.json"
    deep.write_text(json.dumps(_otlp_request(T)) + "\n" + text + "\n")
    with pytest.raises(BadInput, match=r"deep.json:2: nested too deep to read"):
        read_span_files([str(deep)])
    deep.write_text(text)
    with pytest.raises(BadInput, match=r"deep.json:1: nested too deep to read"):
        read_span_files([str(deep)])


def _broken(change) -> dict:
    request = _otlp_request(T)
    change(request, request["resourceSpans"][0]["scopeSpans"][0]["spans"])
    return request


SPAN_1 = "resourceSpans[0].scopeSpans[0].spans[1]"


@pytest.mark.parametrize(
    ("request_json", "problem"),
    [
        (_broken(lambda r, s: s[1].update(attributes={"a": 1})), f"{SPAN_1}.attributes: expected a list, got an object"),
        (_broken(lambda r, s: s.__setitem__(0, None)), "resourceSpans[0].scopeSpans[0].spans[0]: expected an object, got null"),
        (_broken(lambda r, s: r.update(resourceSpans={"scopeSpans": []})), "resourceSpans: expected a list, got an object"),
        (_broken(lambda r, s: s[1]["attributes"].append({"value": {}})), f"{SPAN_1}.attributes[7]: no 'key'"),
        (
            _broken(lambda r, s: s[1]["attributes"].append({"key": "n", "value": {"intValue": "many"}})),
            f"{SPAN_1}.attributes[7] (n): invalid literal for int() with base 10: 'many'",
        ),
        (
            _broken(lambda r, s: s[1].update(startTimeUnixNano="yesterday")),
            f"{SPAN_1}.startTimeUnixNano: not a time (nanoseconds since the epoch, or ISO 8601): 'yesterday'",
        ),
        (_broken(lambda r, s: s[1].pop("traceId")), f"{SPAN_1}: no 'traceId'"),
        ([{"trace_id": T, "span_id": "aa"}, {"span_id": "bb"}], "[1]: no 'trace_id'"),
        ({"data": [{"trace_id": T, "span_id": "aa", "context": "x"}]}, "data[0]: context: expected an object, got a string"),
    ],
)  # fmt: skip
def test_a_span_file_of_the_wrong_shape_names_the_place_in_it(tmp_path, request_json, problem):
    """The message said what Python said ("string indices must be integers", "'NoneType' object has no attribute
    'get'"), not where in the file."""
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(request_json, indent=1))  # one JSON text over many lines: no line to name
    with pytest.raises(BadInput) as caught:
        read_span_files([str(path)])
    assert caught.value.where_and_what() == f"{path}: not an OTLP request or a span: {problem}"


def test_json_text_in_an_attribute_nested_too_deep_is_kept_as_text():
    """``input.value`` (mime type JSON) and a document's metadata are parsed as JSON: nested past Python's recursion
    limit they raised RecursionError out of ``ragviz import otlp``; like text that is not JSON, they stay text."""
    deep = "[" * 100_000 + "]" * 100_000
    question = Span(T, "r", None, "rag", "CHAIN", 0, {"input.value": deep, "input.mime_type": "application/json"})
    docs = retriever("a", 1, "Doc.")
    docs = Span(
        T, "a", "r", "retrieve", "RETRIEVER", 1, {**docs.attributes, "retrieval.documents.0.document.metadata": deep}
    )
    row = trace_row([question, docs, llm(2)], "p")
    assert not isinstance(row, Skipped)
    assert row["question"] == deep and row[SIDECAR]["documents"][0]["metadata"] == deep


def test_a_span_file_with_a_byte_order_mark_reads(tmp_path):
    """The row loaders read a UTF-8 byte order mark; span files said "not JSON (Unexpected UTF-8 BOM)"."""
    path = tmp_path / "spans.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_otlp_request(T)).encode() + b"\n")
    assert [r["id"] for r in map_traces(read_span_files([str(path)])).rows] == [T]


def test_a_span_file_that_is_not_utf8_names_the_line_and_byte(tmp_path):
    path = tmp_path / "spans.jsonl"
    path.write_bytes(json.dumps(_otlp_request(T)).encode() + b'\n{"name": "caf\xe9"}\n')
    with pytest.raises(BadInput) as caught:
        read_span_files([str(path)])
    offset = len(json.dumps(_otlp_request(T))) + 1 + len('{"name": "caf')
    assert str(caught.value) == f"{path}:2: not UTF-8 text: byte 0xe9 at byte offset {offset}; save it as UTF-8"
