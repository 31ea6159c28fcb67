"""The Data and Export pages under AppTest: load sample data / a path / an upload, reports, annotator
choice, and exports that reload to the same labels and scores."""

from __future__ import annotations

import html
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.load import load, load_bytes
from ragviz.export.files import export_bytes, export_filename
from ragviz.metrics.trace import example_trace
from ragviz.store.label_store import LabelStore
from ragviz.ui.core.render import md_escape
from tests.apptest_helpers import click_sentence
from tests.sample import ROOT, SAMPLE_DATA, SAMPLE_JSONL

APP = str(ROOT / "app.py")
ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def run(page: str = "pages/data.py", **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    if page != "pages/home.py":  # the default page; AppTest drops the sidebar when switching to it
        at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def html_text(at: AppTest) -> str:
    return "\n".join(h.value for h in at.get("html"))


def test_data_page_shows_what_is_loaded_and_the_quality_report(app_env):
    at = run()
    assert metric(at, "Examples") == "22" and metric(at, "Errors") == "0"
    frames = [d.value for d in at.dataframe]
    issues = next(f for f in frames if "issue" in f.columns and "occurrences" in f.columns)
    assert issues["occurrences"].sum() > 0
    assert {"trailing_dot", "duplicate_key", "non_key", "unknown_key"} <= set(issues["issue"])
    assert html.escape(str(app_env["db"])) in "\n".join(h.value for h in at.sidebar.get("html"))


def test_sample_button_path_and_upload(app_env, tmp_path, monkeypatch):
    monkeypatch.setenv("RAGVIZ_DATA", "")
    at = run()
    assert any("Nothing loaded" in i.value for i in at.info)
    at.button(key="data.load_sample").click().run()
    assert metric(at, "Examples") == "22"

    # open a path: a directory in the Hugging Face layout with one Parquet shard of 3 rows
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()[:3]]
    shard = tmp_path / "hf" / "mysubset"
    shard.mkdir(parents=True)
    ds = load([SAMPLE_JSONL]).dataset
    pq.write_table(
        ds.table.slice(0, 3).drop_columns(["_subset", "_path", "_row"]), shard / "test-00000-of-00001.parquet"
    )
    at.text_input(key="data.path").input(str(tmp_path / "hf")).run()
    at.button(key="data.open").click().run()
    assert metric(at, "Examples") == "3"

    # a good upload replaces the data; with "add", it is added
    data = ("\n".join(json.dumps({**r, "id": f"upl-{i}"}) for i, r in enumerate(rows[:2])) + "\n").encode()
    at.get("file_uploader")[0].upload("two.jsonl", data).run()
    assert metric(at, "Examples") == "2"
    with LabelStore(app_env["db"]) as store:
        assert any(p.endswith("two.jsonl") for p in store.sources.registered())
    at.checkbox(key="data.add").check().run()
    at.button(key="data.load_sample").click().run()
    assert metric(at, "Examples") == "24"

    # a bad upload shows PATH:ROW: field: problem and changes nothing
    at.get("file_uploader")[0].upload(
        "bad.jsonl", b'{"id": "a", "question": "q", "documents": "oops", "response": "r"}\n'
    ).run()
    assert any("Not loaded" in e.value for e in at.error)
    assert "bad.jsonl:1: documents:" in html_text(at)
    assert metric(at, "Examples") == "24"


def test_annotator_name_is_used_for_decisions(app_env):
    at = run()
    at.text_input(key="data.annotator").input("alice").run()
    assert at.session_state["ragviz.annotator"] == "alice"
    at.switch_page("pages/review.py").run()
    at.query_params["id"] = "ml-vs-programming"
    at.run()
    click_sentence(at, "0a")  # the first context sentence becomes relevant
    with LabelStore(app_env["db"]) as store:
        assert store.annotators() == ["alice"]
        assert store.changes(ML, "alice")[0][0] == "relevant_keys"


def test_export_page_and_round_trip(app_env):
    at = run("pages/review.py", id="ml-vs-programming")
    click_sentence(at, "0a")  # the first context sentence becomes relevant
    at.switch_page("pages/export.py").run()
    assert not at.exception
    assert metric(at, "Corrected by you") == "1" and metric(at, "Reviewed by you") == "1"
    assert at.radio(key="export.format").options == [
        "Labels (JSONL)",
        "Labels (Parquet)",
        "Metrics (CSV)",
        "Ragas dataset (JSONL)",
        "DeepEval test cases (JSON)",
    ]
    assert [b.label for b in at.get("download_button")] == ["Download labels (JSONL)"]  # small data: built at once
    table = next(d.value for d in at.dataframe if "relevance" in d.value.columns)
    row = table[(table["id"] == "ml-vs-programming") & (table["generation_model"] == "gpt-4o-mini")].iloc[0]
    assert row["relevance"] == 5 / 6 and row["label_source"] == "human"

    # the bytes the buttons serve: reload them and get the same labels and scores
    with LabelStore(app_env["db"]) as store:
        ds = load([SAMPLE_DATA]).dataset
        current = {ex.uid: store.current_labels(ex, "tester") for ex in ds}
        for fmt in ("jsonl", "parquet", "deepeval"):
            name = "export.json" if fmt == "deepeval" else f"export.{fmt}"
            back = load_bytes(name, export_bytes(ds, store, LabelSelection.of("tester"), fmt))
            assert back.ok, back.errors
            assert len(back.dataset) == len(ds)
            for ex in back.dataset:
                want = current[ex.uid]
                assert (ex.labels is None) == (want is None)
                if want is not None:
                    assert ex.labels.relevant_keys == want.relevant_keys and ex.labels.support == want.support
                assert example_trace(ex) == example_trace(ds.example(ds.index_of(ex.uid)), want)
        csv = export_bytes(ds, store, LabelSelection.of("tester"), "csv").decode()
    assert csv.splitlines()[0].startswith("id,")
    assert any(line.startswith("ml-vs-programming,") and ",human" in line for line in csv.splitlines())
    assert pa is not None


def test_export_hint_names_the_data_files_and_never_a_password(tmp_path):
    from ragviz.ui.export.page import export_command

    line = export_command(
        "postgresql://me:s3cret@db.example:5432/labels",
        LabelSelection.of("ann o"),
        [str(SAMPLE_DATA)],
        ["ann o"],
    )
    assert "s3cret" not in line and "postgresql://me@db.example:5432/labels" in line
    assert line.startswith(f"ragviz export {ROOT / 'sample_data'} --db ") and line.endswith("--annotator 'ann o'")
    assert "--annotator" not in export_command(
        tmp_path / "x.db", LabelSelection.of("ann"), ["sample_data"], []
    )  # nobody decided yet


def test_a_long_export_hint_is_shown_one_part_a_line_and_runs_as_one_command(tmp_path):
    """In a narrow box a wrapped command broke inside "--annotator"; a long one is shown one part a line, each
    line but the last ending in the shell's continuation, and reads back as the same command."""
    import shlex

    from ragviz.ui.export.page import COMMAND_LINE_WIDTH, export_command, export_command_parts, shown_command

    args = (tmp_path / "a store with spaces.db", LabelSelection.of("ann o"), [str(SAMPLE_DATA)], ["ann o"])
    parts = export_command_parts(*args)
    shown = shown_command(parts)
    assert [line.lstrip().split()[0] for line in shown.splitlines()] == ["ragviz", "--db", "--annotator"]
    assert all(line.endswith(" \\") for line in shown.splitlines()[:-1])
    assert shlex.split(shown.replace("\\\n", " ")) == shlex.split(export_command(*args))
    short = ["ragviz export", "--db x.db -o labels.jsonl"]
    assert (
        len(" ".join(short)) <= COMMAND_LINE_WIDTH and shown_command(short) == "ragviz export --db x.db -o labels.jsonl"
    )


def test_opening_a_path_reads_it_once_and_a_refused_one_again_once_fixed(app_env, tmp_path, monkeypatch):
    """Open a path: the check and the page share one read; a refused file is not kept, so opening it
    again after fixing it loads the fixed rows."""
    import ragviz.data.load as load_module

    reads: list[tuple[str, ...]] = []
    real = load_module.load
    monkeypatch.setattr(load_module, "load", lambda paths, **kw: reads.append(tuple(paths)) or real(paths, **kw))
    path = tmp_path / "mine.jsonl"
    path.write_text('{"id": "a", "question": "q", "documents": "oops", "response": "r"}\n')
    at = run()
    at.text_input(key="data.path").input(str(path)).run()
    reads.clear()
    at.button(key="data.open").click().run()
    assert any("Not loaded" in e.value for e in at.error) and reads == [(str(path),)]
    path.write_text('{"id": "a", "question": "q", "documents": ["A. B."], "response": "r"}\n')
    at.button(key="data.open").click().run()
    assert metric(at, "Examples") == "1" and reads == [(str(path),)] * 2
    at.run()
    assert reads == [(str(path),)] * 2


@pytest.fixture
def served_files(monkeypatch):
    """What the Export page's download buttons would send, by button label: the deferred callables
    Streamlit registers, called as Streamlit calls them when the person clicks."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    callables: dict[str, object] = {}
    register = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, element_id=""):
        callables[file_name] = data_callable
        return register(self, data_callable, mimetype, coordinates, file_name=file_name, element_id=element_id)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return callables


def test_every_format_downloads_the_bytes_of_export_bytes(app_env, served_files):
    at = run("pages/review.py", id="ml-vs-programming")
    click_sentence(at, "0a")
    at.switch_page("pages/export.py").run()
    ds = load([SAMPLE_DATA]).dataset
    for fmt, name in (("jsonl", "labels (JSONL)"), ("parquet", "labels (Parquet)"), ("csv", "metrics (CSV)")):
        at.radio(key="export.format").set_value(fmt).run()
        assert not at.exception
        assert [b.label for b in at.get("download_button")] == [f"Download {name}"]
        file_name = export_filename("tester", fmt)
        with LabelStore(app_env["db"]) as store:
            assert served_files[file_name]() == export_bytes(ds, store, LabelSelection.of("tester"), fmt)
        assert any(c.value.startswith(md_escape(file_name)) and "built" in c.value for c in at.caption)


def test_large_data_builds_on_request_with_rows_done_and_only_own_changes_outdate_it(
    app_env, served_files, monkeypatch
):
    """Above BUILT_AT_ONCE_ROWS the file is built when the person asks, with a rows done / total bar;
    a teammate's decision leaves it valid, the person's own asks for a new build."""
    from ragviz.ui.core.progress import RowProgress
    from ragviz.ui.export import page as export_ui

    monkeypatch.setattr(export_ui, "BUILT_AT_ONCE_ROWS", 5)
    shown: list[str] = []
    redraw = RowProgress.__call__

    def record_bar(self, what, done, total):
        redraw(self, what, done, total)
        shown.append(f"{what}: {done:,} / {total:,} rows")  # the text RowProgress draws

    monkeypatch.setattr(RowProgress, "__call__", record_bar)
    at = run("pages/export.py")
    assert not at.get("download_button") and not shown  # nothing is built before the person asks
    assert any("all 22 examples" in c.value for c in at.caption)
    at.button(key="export.build.jsonl").click().run()
    assert shown[-1] == "Building the export: 22 / 22 rows"
    assert [b.label for b in at.get("download_button")] == ["Download labels (JSONL)"]
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        store.record(ML, "teammate", [("relevant_keys", ["0a"], ["0a", "0b"])])
        assert served_files[export_filename("tester", "jsonl")]() == export_bytes(
            ds, store, LabelSelection.of("tester"), "jsonl"
        )
    at.run()
    assert [b.label for b in at.get("download_button")] == ["Download labels (JSONL)"]  # still valid
    at.switch_page("pages/review.py").run()
    click_sentence(at, "0a")
    at.switch_page("pages/export.py").run()
    assert not at.get("download_button")
    assert any("build it again" in c.value for c in at.caption)


def test_export_metrics_table_shows_the_id_and_the_picked_columns_and_the_csv_keeps_every_one(app_env):
    """At 1280 px the nine columns ran past the page: the table shows the pinned id and the columns picked
    (the model and the scores at first, the subset and label source a click away); the CSV holds all nine."""
    from ragviz.export.rows import METRICS_COLUMNS
    from ragviz.ui.export.table import PREVIEW_COLUMNS

    at = run("pages/export.py")
    table = next(d for d in at.dataframe if "relevance" in d.value.columns)
    assert list(table.proto.column_order) == ["id", *PREVIEW_COLUMNS]
    assert json.loads(table.proto.columns)["id"]["pinned"] is True
    assert list(table.value.columns) == list(METRICS_COLUMNS)  # the data sent stays whole
    picker = next(w for w in at.button_group if w.key == "export.table_columns")
    picker.set_value([*PREVIEW_COLUMNS, "dataset", "label_source"]).run()
    table = next(d for d in at.dataframe if "relevance" in d.value.columns)
    assert list(table.proto.column_order) == list(METRICS_COLUMNS)  # in the table's order, whatever the clicks' order
    ds = load([SAMPLE_JSONL]).dataset
    with LabelStore(app_env["db"]) as store:
        header = export_bytes(ds, store, LabelSelection.of("tester"), "csv").decode().splitlines()[0]
    assert header.split(",") == list(METRICS_COLUMNS)
