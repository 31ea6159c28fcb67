"""Exports: round trip of current labels, scores and judge labels on real RAGBench rows and on an
unlabeled example; writers; the export command."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.cli.export import export_command
from ragviz.cli.main import main
from ragviz.data.dataset import Dataset
from ragviz.data.labels import Change, field_value, support_field, toggle_key
from ragviz.data.ragbench import LLM_PREFIX, example_from_row, labels_to_row
from ragviz.export import files
from ragviz.export.files import (
    WRITING_PARQUET,
    export_bytes,
    export_filename,
    metrics_csv,
    write_download,
    write_jsonl,
    write_parquet,
)
from ragviz.export.rows import EXPORTING, export_rows, metrics_records
from ragviz.metrics.trace import example_trace, trace_scores
from ragviz.store.label_store import LabelStore
from tests.cli_run import ragviz
from tests.ragbench_data import require_ragbench, shard

# one gpt-4o subset (fully_supported set) and one gpt-4-turbo subset (fully_supported null)
SUBSETS = ("covidqa", "emanual")
N_PER_SUBSET = 4


@pytest.fixture(scope="module")
def ragbench_tables():
    require_ragbench()
    return {s: pq.read_table(shard(s)).slice(0, N_PER_SUBSET) for s in SUBSETS}


@pytest.fixture
def dataset(ragbench_tables, tmp_path):
    parts = []
    for subset, table in ragbench_tables.items():
        path = tmp_path / f"{subset}.parquet"
        pq.write_table(table, path)
        parts.append(Dataset.from_table(table, subset, str(path)))
    return Dataset.concat(parts)


def _edit(store, example, annotator):
    """A realistic session on one example: toggle a relevant key, flip one sentence's support."""
    cur = store.current_labels(example, annotator)
    key = example.context_keys()[-1]
    store.record(
        example.uid,
        annotator,
        [Change("relevant_keys", field_value(cur, "relevant_keys"), toggle_key(cur.relevant_keys, key))],
    )
    rkey = example.response_keys()[0]
    old = field_value(store.current_labels(example, annotator), support_field(rkey))
    new = {"supported": False, "supporting_keys": [], "explanation": "checked by hand"}
    store.record(example.uid, annotator, [Change(support_field(rkey), old, new)])


def _reload(rows):
    return [example_from_row(r) for r in rows]


def _same_labels(a, b):
    return labels_to_row(a) == labels_to_row(b)


def _check_round_trip(dataset, store, annotator, reloaded):
    assert len(reloaded) == len(dataset)
    for i, again in enumerate(reloaded):
        original = dataset.example(i)
        assert again.uid == original.uid
        current = store.current_labels(original, annotator)
        assert _same_labels(again.labels, current), original.uid
        assert example_trace(again) == trace_scores(current, original.n_context_sentences)
        assert _same_labels(again.judge_labels, original.judge_labels)
        assert again.labels.provenance.source == current.provenance.source


@pytest.mark.conformance
def test_round_trip_on_real_rows(dataset, tmp_path):
    with LabelStore(tmp_path / "l.db") as store:
        edited = [dataset.example(0), dataset.example(N_PER_SUBSET + 1)]
        for ex in edited:
            _edit(store, ex, "ann")
        reviewed = dataset.example(2)
        store.record(reviewed.uid, "ann", [Change("review", None, "reviewed")], action="review")
        rows = export_rows(dataset, store, LabelSelection.of("ann"))

        # field names: the input's, plus scores, llm_ copies and provenance
        input_columns = set(dataset.table.column_names) - {"_subset", "_path", "_row"}
        assert input_columns <= set(rows[0])
        assert {LLM_PREFIX + "all_relevant_sentence_keys", "label_source", "reviewer", "reviewed_at"} <= set(rows[0])

        for i, row in enumerate(rows):
            src = dataset.row(i)
            uid = dataset.uids[i]
            is_human = uid in {e.uid for e in edited} | {reviewed.uid}
            assert row["label_source"] == ("human" if is_human else "llm")
            assert row["reviewer"] == ("ann" if is_human else None)
            assert (row["reviewed_at"] is not None) == is_human
            assert row["trulens_groundedness"] == src["trulens_groundedness"]  # other fields as they were
            if uid not in {e.uid for e in edited}:
                # nothing changed: the recomputed scores are exactly the authors' stored scores
                for f in ("relevance_score", "utilization_score", "completeness_score", "adherence_score"):
                    assert row[f] == src[f], (uid, f)
            else:
                assert row["adherence_score"] is False
                assert row["all_relevant_sentence_keys"] != src["all_relevant_sentence_keys"]
            assert row[LLM_PREFIX + "all_relevant_sentence_keys"] == src["all_relevant_sentence_keys"]

        # JSONL and Parquet both come back identical
        jsonl = tmp_path / "out.jsonl"
        write_jsonl(rows, jsonl)
        from_jsonl = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
        _check_round_trip(dataset, store, "ann", _reload(from_jsonl))
        parquet = tmp_path / "out.parquet"
        write_parquet(rows, parquet)
        from_parquet = pq.read_table(parquet).to_pylist()
        _check_round_trip(dataset, store, "ann", _reload(from_parquet))
        assert pq.read_schema(parquet).field("adherence_score").type == pa.bool_()


@pytest.mark.conformance
def test_round_trip_through_loaders(dataset, tmp_path):
    loaders = pytest.importorskip("ragviz.data.load")
    with LabelStore(tmp_path / "l.db") as store:
        _edit(store, dataset.example(1), "ann")
        rows = export_rows(dataset, store, LabelSelection.of("ann"))
        for name, writer in (("out.jsonl", write_jsonl), ("out.parquet", write_parquet)):
            writer(rows, tmp_path / name)
            result = loaders.load([str(tmp_path / name)])
            assert not result.errors, [str(e) for e in result.errors]
            _check_round_trip(dataset, store, "ann", list(result.dataset))


@pytest.mark.conformance
def test_reexport_of_reviewed_file_keeps_the_earlier_review(dataset, tmp_path):
    with LabelStore(tmp_path / "a.db") as first:
        _edit(first, dataset.example(0), "ann")
        rows = export_rows(dataset, first, LabelSelection.of("ann"))
    again = Dataset.from_rows(rows, "reviewed", str(tmp_path / "reviewed.jsonl"))
    with LabelStore(tmp_path / "b.db") as second:
        rows2 = export_rows(again, second, LabelSelection.of("bob"))
    assert rows2[0]["label_source"] == "human" and rows2[0]["reviewer"] == "ann"
    assert rows2[0]["all_relevant_sentence_keys"] == rows[0]["all_relevant_sentence_keys"]
    assert rows2[0][LLM_PREFIX + "all_relevant_sentence_keys"] == rows[0][LLM_PREFIX + "all_relevant_sentence_keys"]
    assert rows2[1]["label_source"] == "llm"


def _unlabeled_dataset(tmp_path):
    row = {
        "id": "u1",
        "question": "Is <b>this</b> fine?",
        "documents": ["A. B."],
        "documents_sentences": [[["0a", "A."], ["0b", "B."]]],
        "response": "Yes. No.",
        "response_sentences": [["a", "Yes."], ["b", "No."]],
        "generation_model_name": "m",
        "dataset_name": "mine",
        "my_extra": 7,
    }
    return Dataset.from_rows([row, {**row, "id": "u2"}], "mine", str(tmp_path / "mine.jsonl"))


def test_unlabeled_example_round_trip(tmp_path):
    dataset = _unlabeled_dataset(tmp_path)
    with LabelStore(tmp_path / "l.db") as store:
        rows = export_rows(dataset, store, LabelSelection.of("ann"))
        assert rows[0]["all_relevant_sentence_keys"] is None and rows[0]["relevance_score"] is None
        assert rows[0]["adherence_score"] is None and rows[0]["label_source"] is None
        assert example_from_row(rows[0]).labels is None

        ex = dataset.example(0)
        store.record(ex.uid, "ann", [Change("relevant_keys", [], ["0a"]), Change("utilized_keys", [], ["0a"])])
        store.record(
            ex.uid,
            "ann",
            [
                Change(support_field("a"), None, {"supported": True, "supporting_keys": ["0a"], "explanation": ""}),
                Change(support_field("b"), None, {"supported": True, "supporting_keys": ["0b"], "explanation": ""}),
            ],
        )
        rows = export_rows(dataset, store, LabelSelection.of("ann"))
        row = rows[0]
        assert row["label_source"] == "human" and row["my_extra"] == 7
        assert (
            row["relevance_score"],
            row["utilization_score"],
            row["completeness_score"],
            row["adherence_score"],
        ) == (0.5, 0.5, 1.0, True)
        assert row[LLM_PREFIX + "all_relevant_sentence_keys"] is None
        for data in (
            export_bytes(dataset, store, LabelSelection.of("ann"), "jsonl"),
            export_bytes(dataset, store, LabelSelection.of("ann"), "parquet"),
        ):
            if data.startswith(b"PAR1"):
                back = pq.read_table(pa.BufferReader(data)).to_pylist()
            else:
                back = [json.loads(line) for line in data.decode().splitlines()]
            again = example_from_row(back[0])
            assert _same_labels(again.labels, store.current_labels(ex, "ann"))
            assert again.judge_labels is None
            assert example_from_row(back[1]).labels is None


def test_metrics_csv_matches_trace(tmp_path):
    dataset = _unlabeled_dataset(tmp_path)
    with LabelStore(tmp_path / "l.db") as store:
        ex = dataset.example(1)
        store.record(ex.uid, "ann", [Change("relevant_keys", [], ["0a", "0b"]), Change("utilized_keys", [], ["0b"])])
        text = metrics_csv(dataset, store, LabelSelection.of("ann"))
        records = list(csv.DictReader(io.StringIO(text)))
        assert list(records[0]) == [
            "id",
            "dataset",
            "generation_model",
            "relevance",
            "utilization",
            "completeness",
            "adherence",
            "trace_mean",
            "label_source",
        ]
        assert records[0]["relevance"] == "" and records[0]["label_source"] == ""
        expected = trace_scores(store.current_labels(ex, "ann"), 2)
        assert records[1]["id"] == "u2" and float(records[1]["completeness"]) == expected.completeness == 0.5
        assert float(records[1]["trace_mean"]) == expected.mean and records[1]["label_source"] == "human"
        assert metrics_records(dataset, store, LabelSelection.of("ann"))[1]["relevance"] == 1.0
        assert export_bytes(dataset, store, LabelSelection.of("ann"), "csv") == text.encode()
        with pytest.raises(ValueError, match="unknown export format"):
            export_bytes(dataset, store, LabelSelection.of("ann"), "xml")
    assert export_filename("Ann Lee", "csv") == "ragviz-labels-Ann_Lee.metrics.csv"
    assert export_filename(None, "jsonl") == "ragviz-labels.jsonl"


def _db_with_two_annotators(tmp_path):
    dataset = _unlabeled_dataset(tmp_path)
    data = tmp_path / "mine.jsonl"
    data.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in dataset.iter_rows([c for c in dataset.table.column_names if not c.startswith("_")])
        )
    )
    db = tmp_path / "l.db"
    with LabelStore(db) as store:
        store.sources.register(str(data))
        ex = dataset.example(0)
        store.record(ex.uid, "alice", [Change("relevant_keys", [], ["0b"])])
        store.record(ex.uid, "bob", [Change("review", None, "reviewed")], action="review")
    return db


def export_refused(db: str, out: str, fmt: str | None, annotator: str | None, data: list[str] | None = None) -> int:
    """``ragviz export`` run through the CLI's one error channel (bad input: printed, exit 2)."""
    options = [*(["--format", fmt] if fmt else []), *(["--annotator", annotator] if annotator else [])]
    return main(["export", *(data or []), "--db", db, "-o", out, *options])


def test_export_command(tmp_path, capsys):
    db = _db_with_two_annotators(tmp_path)
    out = tmp_path / "out.jsonl"
    # two annotators, none named: the team's export (issue 28.8), bob's accept the newest decision of the row
    assert export_command(str(db), str(out), "jsonl", None) == 0
    assert "every annotator" in capsys.readouterr().err
    team = [json.loads(line) for line in out.read_text().splitlines()]
    assert team[0]["all_relevant_sentence_keys"] == ["0b"] and team[0]["reviewer"] == "bob"
    assert json.loads(team[0]["field_reviewers"]) == {"relevant_keys": "alice"}

    assert export_command(str(db), str(out), "jsonl", "alice") == 0
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "exported 2 examples" in err and "1 corrected" in err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["all_relevant_sentence_keys"] == ["0b"] and rows[0]["reviewer"] == "alice"

    assert export_command(str(db), str(tmp_path / "m.csv"), None, "bob") == 0
    assert (tmp_path / "m.csv").read_text().startswith("id,dataset,generation_model,relevance")
    assert export_command(str(db), str(tmp_path / "o.parquet"), None, "bob") == 0
    assert pq.read_table(tmp_path / "o.parquet").column("label_source").to_pylist()[0] == "human"

    assert export_refused(str(db), str(out), "jsonl", "carol") == 2
    assert "carol" in capsys.readouterr().err
    assert export_refused(str(tmp_path / "nope.db"), str(out), "jsonl", None) == 2
    assert "nope.db" in capsys.readouterr().err


def test_export_command_missing_source(tmp_path, capsys):
    db = _db_with_two_annotators(tmp_path)
    Path(tmp_path / "mine.jsonl").unlink()
    assert export_refused(str(db), str(tmp_path / "o.jsonl"), "jsonl", "alice") == 2
    assert "mine.jsonl: registered data file is missing" in capsys.readouterr().err


def test_ragviz_export_cli_as_a_user_runs_it(tmp_path):

    db = _db_with_two_annotators(tmp_path)
    root = Path(__file__).resolve().parents[2]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "HOME": str(tmp_path)}

    def run(*a):
        return ragviz("export", *a, env=env, cwd=tmp_path)

    done = run("--db", str(db), "-o", "out.parquet")  # the team's export
    assert done.returncode == 0 and "every annotator" in done.stderr and "Traceback" not in done.stderr
    assert pq.read_table(tmp_path / "out.parquet").column("reviewer").to_pylist()[0] == "bob"
    env["RAGVIZ_DB"] = str(db)
    done = run("-o", "-", "--format", "csv", "--annotator", "bob")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].endswith(",human") and "exported 2 examples" in done.stderr


def test_export_command_exports_named_data_files_with_the_store_labels(tmp_path, capsys):
    """``ragviz export DATA --db DB``: files never registered through the app get the store's labels."""
    db = _db_with_two_annotators(tmp_path)
    data = tmp_path / "mine.jsonl"
    copy = tmp_path / "elsewhere" / "mine.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(data.read_bytes())
    data.unlink()  # the registered file is gone; the named copy is exported
    out = tmp_path / "named.jsonl"
    assert export_command(str(db), str(out), None, "alice", [str(copy)]) == 0
    assert "exported 2 examples" in capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["all_relevant_sentence_keys"] == ["0b"] and rows[0]["reviewer"] == "alice"

    assert export_command(None, str(tmp_path / "plain.parquet"), None, None, [str(copy)]) == 0
    assert pq.read_table(tmp_path / "plain.parquet").column("label_source").to_pylist() == [None, None]
    assert export_refused(str(db), str(out), None, "alice", [str(tmp_path / "nope.jsonl")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err


def test_a_flipped_verdict_exports_the_reviewers_note_and_keeps_the_judges_text_under_llm(dataset, tmp_path):
    """On a real RAGBench row: flipping a response sentence's verdict with a note writes the note as
    that sentence's explanation (the judge's text no longer argues against the label) and keeps the
    judge's explanation in llm_sentence_support_information; the file loads back the same way."""
    from ragviz.analysis.review.edits import verdict_change

    i, ex = next(
        (i, ex)
        for i, ex in enumerate(dataset)
        if ex.labels and any(s.explanation and s.supported is not None for s in ex.labels.support)
    )
    judged = next(s for s in ex.labels.support if s.explanation and s.supported is not None)
    with LabelStore(tmp_path / "labels.db") as store:
        cur = store.current_labels(ex, "ann")
        change = verdict_change(cur, store.base_labels(ex), judged.key, not judged.supported, note="checked by hand")
        store.record(ex.uid, "ann", [change], example=ex)
        row = export_rows(dataset, store, LabelSelection.of("ann"))[i]
    now = next(s for s in row["sentence_support_information"] if s["response_sentence_key"] == judged.key)
    was = next(s for s in row[LLM_PREFIX + "sentence_support_information"] if s["response_sentence_key"] == judged.key)
    assert now["fully_supported"] is (not judged.supported) and now["explanation"] == "checked by hand"
    assert was["fully_supported"] is judged.supported and was["explanation"] == judged.explanation
    path = tmp_path / "out.jsonl"
    write_jsonl([row], path)
    back = example_from_row(json.loads(path.read_text()))
    assert back.labels.support_for(judged.key).explanation == "checked by hand"
    assert back.judge_labels.support_for(judged.key).explanation == judged.explanation


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "csv", "ragas", "deepeval"])
def test_every_download_reports_rows_done_up_to_all_of_them(dataset, tmp_path, fmt):
    """The Export page's bar: ``(step, rows done, total)`` once a batch, never past the total, ending at
    every row; a Parquet file then names the write of the file as its own step."""
    heard: list[tuple[str, int, int]] = []
    with LabelStore(tmp_path / "labels.db") as store:
        _edit(store, dataset.example(0), "ann")
        out = io.BytesIO()
        write_download(dataset, store, LabelSelection.of("ann"), fmt, out, lambda *call: heard.append(call))
        assert out.getvalue() == export_bytes(dataset, store, LabelSelection.of("ann"), fmt)
    n = len(dataset)
    building = [done for what, done, total in heard if what == EXPORTING and total == n]
    assert building and building[-1] == n and building == sorted(building)
    writing = [h for h in heard if h[0] != EXPORTING]
    assert writing == ([(WRITING_PARQUET, n, n)] if fmt == "parquet" else [])  # fewer rows than a row group


def test_a_parquet_export_is_written_a_row_group_at_a_time(dataset, tmp_path, monkeypatch):
    monkeypatch.setattr(files, "PARQUET_ROW_GROUP", 3)
    heard: list[tuple[str, int, int]] = []
    out = tmp_path / "out.parquet"
    files.write_export(dataset, None, None, "parquet", out, progress=lambda *call: heard.append(call))
    n = len(dataset)
    assert [done for what, done, _ in heard if what == WRITING_PARQUET] == [*range(3, n, 3), n]
    assert pq.ParquetFile(out).metadata.num_row_groups == -(-n // 3)
    assert pq.read_table(out).equals(pq.read_table(io.BytesIO(export_bytes(dataset, None, None, "parquet"))))


def test_a_streamed_parquet_export_in_batches_is_the_whole_export(dataset, tmp_path):
    """``ragviz export`` of Parquet files streams them a record batch at a time, each batch built once: the file is
    the one the whole loaded data gives, whatever the batches' own column types (a batch with no decision has no
    reviewer)."""
    from ragviz.data.problems import Report
    from ragviz.data.stream import parquet_batches
    from ragviz.export.stream import write_export_stream

    paths = sorted({p for p in dataset.table.column("_path").to_pylist()})
    with LabelStore(tmp_path / "l.db") as store:
        _edit(store, dataset.example(len(dataset) - 1), "ann")  # only the last batch has a person's decision
        streamed = tmp_path / "streamed.parquet"
        done = write_export_stream(
            lambda: parquet_batches([Path(p) for p in paths], Report(), batch_rows=3),
            store,
            LabelSelection.of("ann"),
            "parquet",
            streamed,
        )
        whole = export_bytes(dataset, store, LabelSelection.of("ann"), "parquet")
    assert (done.n_rows, done.n_human, done.n_corrected) == (len(dataset), 1, 1)
    assert pq.read_table(streamed).equals(pq.read_table(io.BytesIO(whole)))


def test_a_streamed_parquet_export_to_a_path_is_written_as_its_batches_come_and_started_over_on_a_new_type(
    dataset, tmp_path, monkeypatch
):
    """A streamed Parquet export to a path writes each batch as it is built when the batches' types agree: the same
    bytes as the export built whole before writing (an open file gets that one); when a later batch brings a new
    type (a column null until the last row of a file) it starts over, and the rows are counted once."""
    from ragviz.data.problems import Report
    from ragviz.data.stream import parquet_batches
    from ragviz.export import stream
    from ragviz.export.stream import write_export_stream

    paths = [Path(p) for p in sorted({p for p in dataset.table.column("_path").to_pylist()})]

    def batches():
        return parquet_batches(paths, Report(), batch_rows=3)

    started_over = []
    directly = stream._write_parquet_directly
    monkeypatch.setattr(
        stream, "_write_parquet_directly", lambda *a: directly(*a) or started_over.append(True) or False
    )
    with LabelStore(tmp_path / "l.db") as store:
        _edit(store, dataset.example(0), "ann")  # every batch has the reviewer column
        as_it_comes = tmp_path / "direct.parquet"
        write_export_stream(batches, store, LabelSelection.of("ann"), "parquet", as_it_comes)
        held = io.BytesIO()  # an open file: written once every batch is built
        write_export_stream(batches, store, LabelSelection.of("ann"), "parquet", held)
        assert not started_over
        assert as_it_comes.read_bytes() == held.getvalue()

    first = paths[0]  # a column of the data typed only by its last row: null in the earlier batches
    table = pq.read_table(first)
    notes = [None] * (table.num_rows - 1) + ["late"]
    pq.write_table(table.append_column("note", pa.array(notes, pa.string())), first)
    with LabelStore(tmp_path / "m.db") as store:
        _edit(store, dataset.example(len(dataset) - 1), "ann")
        again = tmp_path / "again.parquet"
        done = write_export_stream(batches, store, LabelSelection.of("ann"), "parquet", again)
        whole = io.BytesIO()
        write_export_stream(batches, store, LabelSelection.of("ann"), "parquet", whole)
    assert started_over == [True]
    assert (done.n_rows, done.n_human, done.n_corrected) == (len(dataset), 1, 1)
    assert again.read_bytes() == whole.getvalue()
    assert pq.read_table(again).column("note").to_pylist()[: len(notes)] == notes


def test_a_streamed_parquet_export_that_fails_writing_a_later_batch_raises_it_and_leaves_the_file_as_it_was(
    dataset, tmp_path, monkeypatch
):
    """Each batch is written while the next one is built: a write that fails (a full disk) still stops the export
    with its error, and the file named keeps what it held before."""
    from ragviz.data.problems import Report
    from ragviz.data.stream import parquet_batches
    from ragviz.export.stream import write_export_stream

    paths = [Path(p) for p in sorted({p for p in dataset.table.column("_path").to_pylist()})]
    written = []
    write_table = pq.ParquetWriter.write_table

    def fills_the_disk(self, table, *args, **kwargs):
        if written:
            raise OSError(28, "No space left on device")
        written.append(table.num_rows)
        return write_table(self, table, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", fills_the_disk)
    out = tmp_path / "labels.parquet"
    out.write_bytes(b"the export before")
    with LabelStore(tmp_path / "l.db") as store, pytest.raises(OSError, match="No space left"):
        write_export_stream(
            lambda: parquet_batches(paths, Report(), batch_rows=3), store, LabelSelection.of("ann"), "parquet", out
        )
    assert written == [3]
    assert out.read_bytes() == b"the export before"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".labels")] == []
