"""The Review page's "Draw a new sample" form with a design (issue 23 item 2 in the app): stratified (proportional,
Neyman from the judge's confidence or from a pilot) and active samples drawn on the page are the members
``ragviz audit draw`` prints for the same seed; bad inputs are one clear line, never a traceback."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.audits.floor_tuning import FLOORS
from ragviz.analysis.estimates.pairing import member_rows
from ragviz.cli.main import main
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, open_queue
from tests.ragbench_data import require_ragbench, shard


def _rows() -> list[dict]:
    require_ragbench()
    rows = [*pq.read_table(shard("covidqa")).to_pylist()[:60], *pq.read_table(shard("hagrid")).to_pylist()[:60]]
    for i, r in enumerate(rows):  # the judge is unsure where the answer has unsupported sentences, and on every 7th
        r["judge_confidence"] = 0.55 if (r.get("unsupported_response_sentence_keys") or i % 7 == 0) else 0.97
    return rows


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def judged(app_env, monkeypatch) -> Path:
    path = _write(app_env["tmp"] / "judged.jsonl", _rows())
    monkeypatch.setenv("RAGVIZ_DATA", str(path))
    return path


def _cli_members(capsys, data: Path, *args: object) -> list[str]:
    code = main(["audit", "draw", str(data), *map(str, args), "--format", "json", "--annotator", "cli"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return [m["uid"] for m in json.loads(out)["members"]]


def _audit_mode():
    at = open_page("pages/review.py")
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("Audit sample").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _draw(at, **widgets):
    """Set the form's widgets in order (each run shows the next ones) and press Draw sample."""
    for key, value in widgets.items():
        widget = next(w for kind in ("radio", "selectbox", "number_input", "text_input", "slider", "checkbox")
                      for w in at.get(kind) if getattr(w, "key", None) == key)  # fmt: skip
        widget.set_value(value).run()
        assert not at.exception, [e.value for e in at.exception]
    next(b for b in at.button if b.key == "audit.draw").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return " ".join(c.value for c in at.sidebar.caption).replace("\\", "")


@pytest.mark.parametrize(
    ("widgets", "cli"),
    [
        (
            {"audit.design": "stratified", "audit.by": "dataset_name", "audit.allocation": "neyman"},
            ["--design", "stratified", "--by", "dataset_name", "--allocation", "neyman"],
        ),
        ({"audit.design": "active", "audit.floor": 0.3}, ["--design", "active", "--floor", 0.3]),
    ],
)
def test_the_pages_draw_is_the_clis(judged, app_env, capsys, widgets, cli):
    at = _audit_mode()
    said = _draw(at, **widgets, **{"audit.n": 30, "audit.seed": "11"})
    with LabelStore(app_env["db"]) as store:
        (page,) = store.audits.list_samples()
    assert f"Drew {page.design} sample {page.id}" in said and "seed 11" in said
    assert page.design == widgets["audit.design"]
    members = _cli_members(capsys, judged, "--db", app_env["tmp"] / "cli.db", "--size", 30, "--seed", 11, *cli)
    assert list(page.members) == members
    if page.design == "stratified":
        assert page.params["allocation"] == "neyman" and page.params["confidence"] == "judge_confidence"
        counts = page.params["counts"]
        assert sum(counts.values()) == 30 and len(counts) == 2
    else:
        assert page.params["floor"] == pytest.approx(0.3)
    # the picker names the design, and growing keeps the design and every member
    grow = next(w for w in at.number_input if w.key.startswith("audit.grow_to."))
    grow.set_value(45).run()
    next(b for b in at.button if b.key == "audit.grow").click().run()
    assert not at.exception
    with LabelStore(app_env["db"]) as store:
        grown = store.audits.get_sample(page.id)
    assert grown is not None and grown.design == page.design
    assert list(grown.members[: page.size]) == list(page.members) and grown.size > page.size


def _reviewed_pilot(at, judged: Path, app_env) -> int:
    _draw(at, **{"audit.design": "uniform", "audit.n": 40, "audit.seed": "5"})
    ds = load([judged]).dataset
    with LabelStore(app_env["db"]) as store:
        (pilot,) = store.audits.list_samples()
        for row in member_rows(ds, pilot.members):  # people undo a relevant sentence on every third
            ex = ds.example(row)
            changes = [Change(REVIEW_FIELD, None, REVIEWED)]
            if row % 3 == 0:
                old = field_value(store.current_labels(ex, "tester"), "relevant_keys")
                changes.insert(0, Change("relevant_keys", old, []))
            store.record(ex.uid, "tester", changes, example=ex)
    return pilot.id


def test_neyman_from_a_pilot_is_the_clis(judged, app_env, capsys):
    pilot = _reviewed_pilot(_audit_mode(), judged, app_env)
    at = _audit_mode()
    said = _draw(
        at,
        **{
            "audit.design": "stratified",
            "audit.by": "dataset_name",
            "audit.allocation": "pilot",
            "audit.pilot": pilot,
            "audit.pilot_metric": "relevance",
            "audit.n": 30,
            "audit.seed": "12",
        },
    )
    assert "Drew stratified sample 2" in said, said
    with LabelStore(app_env["db"]) as store:
        page = store.audits.get_sample(2)
    assert page is not None and page.params["pilot"] == {"sample": pilot, "metric": "relevance"}
    # the CLI's draw from the same pilot: copy the store so the pilot's reviews are there
    cli_db = app_env["tmp"] / "cli.db"
    with sqlite3.connect(app_env["db"]) as src, sqlite3.connect(cli_db) as dst:
        src.backup(dst)  # the write-ahead log's pages too
    members = _cli_members(
        capsys, judged, "--db", cli_db, "--size", 30, "--seed", 12, "--design", "stratified", "--by",
        "dataset_name", "--allocation", "neyman", "--pilot", pilot, "--pilot-metric", "relevance",
    )  # fmt: skip
    assert list(page.members) == members


def test_active_calibrated_on_a_pilot_is_the_clis(judged, app_env, capsys):
    pilot = _reviewed_pilot(_audit_mode(), judged, app_env)
    at = _audit_mode()
    at.radio(key="audit.design").set_value("active").run()
    uncalibrated = "Drawn from the confidence alone, the audit trusts it"
    # issue 36 item 8: once a uniform sample exists the calibrated design is the default; unticked, the warning
    assert next(w for w in at.checkbox if w.key == "audit.calibrate").value is True
    assert uncalibrated not in " ".join(c.value for c in at.sidebar.caption)
    next(w for w in at.checkbox if w.key == "audit.calibrate").uncheck().run()
    assert uncalibrated in " ".join(c.value for c in at.sidebar.caption)  # until a pilot calibrates it
    widgets = {"audit.design": "active", "audit.calibrate": True, "audit.pilot": pilot}
    said = _draw(at, **widgets, **{"audit.n": 30, "audit.seed": "13"})
    assert uncalibrated not in " ".join(c.value for c in at.sidebar.caption)
    assert "Drew active sample 2" in said, said
    with LabelStore(app_env["db"]) as store:
        page = store.audits.get_sample(2)
    assert page is not None and page.params["pilot"] == {"sample": pilot, "metric": "trace"}
    assert page.params["calibration"]["n_pilot"] == 40
    # calibrated, the floor is chosen from the pilot (the slider is for an uncalibrated draw), as the CLI's without --floor
    assert page.params["floor"] in FLOORS and len(page.params["floor_from_pilot"]) == len(FLOORS)
    cli_db = app_env["tmp"] / "cli.db"
    with sqlite3.connect(app_env["db"]) as src, sqlite3.connect(cli_db) as dst:
        src.backup(dst)
    members = _cli_members(
        capsys, judged, "--db", cli_db, "--size", 30, "--seed", 13, "--design", "active", "--pilot", pilot,
    )  # fmt: skip
    assert list(page.members) == members


def test_an_active_sample_drawn_with_the_pilots_seed_says_they_are_independent_draws(judged, app_env):
    # issue 36 item 2: the seed is sticky in the form; the page says the pilot and the sample share it, and how many
    # examples they share (as many as independent draws would, not all)
    pilot = _reviewed_pilot(_audit_mode(), judged, app_env)
    at = _audit_mode()
    widgets = {"audit.design": "active", "audit.calibrate": True, "audit.pilot": pilot}
    said = _draw(at, **widgets, **{"audit.n": 30, "audit.seed": "5"})
    with LabelStore(app_env["db"]) as store:
        page, first = store.audits.get_sample(2), store.audits.get_sample(pilot)
    assert page is not None and first is not None
    shared = len(set(page.members) & set(first.members))
    assert f"Seed 5 is also sample {pilot}'s (uniform)" in said, said
    assert f"{shared} of this sample's {page.size} examples are also in sample {pilot}" in said
    assert "overlap as independent draws would" in said and shared < page.size


def test_without_a_confidence_column_the_form_says_so(app_env):
    at = _audit_mode()  # sample_data has no judge confidence column
    at.radio(key="audit.design").set_value("active").run()
    warnings = " ".join(w.value for w in at.sidebar.warning)
    assert "No judge confidence column (e.g. `judge_confidence`, 0–1 per row) in the loaded data" in warnings
    assert next(b for b in at.button if b.key == "audit.draw").disabled
    at.radio(key="audit.design").set_value("stratified").run()
    at.radio(key="audit.allocation").set_value("neyman").run()
    assert "No judge confidence column" in " ".join(w.value for w in at.sidebar.warning)
    at.radio(key="audit.allocation").set_value("pilot").run()
    assert "No sample to take a pilot from yet" in " ".join(w.value for w in at.sidebar.warning)
    at.radio(key="audit.allocation").set_value("proportional").run()
    assert not next(b for b in at.button if b.key == "audit.draw").disabled


def test_bad_inputs_are_one_clear_line(app_env, monkeypatch):
    rows = _rows()
    for r in rows[5:9]:
        r["judge_confidence"] = None
    monkeypatch.setenv("RAGVIZ_DATA", str(_write(app_env["tmp"] / "gaps.jsonl", rows)))
    at = _audit_mode()
    said = _draw(at, **{"audit.design": "active", "audit.n": 20})
    assert "Not drawn: column 'judge_confidence' has no confidence in 0-1 on 4 rows" in said, said
    assert "gaps.jsonl:6" in said
    said = _draw(at, **{"audit.design": "uniform", "audit.seed": "twelve"})
    assert "Not drawn: the seed must be a whole number, got 'twelve'" in said
    said = _draw(at, **{"audit.design": "stratified", "audit.by": "dataset_name", "audit.n": 3, "audit.seed": ""})
    assert "Not drawn: an audit of 3 cannot give each of the 2 strata its 2 audited examples" in said, said
    with LabelStore(app_env["db"]) as store:
        assert store.audits.list_samples() == []


def test_a_paired_sample_drawn_on_the_page_is_the_clis(app_env, capsys, monkeypatch):
    """Issue 39: with two systems' answers in the data the form offers a paired draw (questions); the page's sample is
    the one ``ragviz audit draw --design paired`` draws for the same seed."""
    require_ragbench()
    rows = pq.read_table(shard("emanual")).to_pylist()  # two generation models, 66 questions
    path = _write(app_env["tmp"] / "two.jsonl", rows)
    monkeypatch.setenv("RAGVIZ_DATA", str(path))
    at = _audit_mode()
    said = _draw(at, **{"audit.design": "paired", "audit.n": 8, "audit.seed": "9"})
    with LabelStore(app_env["db"]) as store:
        (page,) = store.audits.list_samples()
    assert f"Drew paired sample {page.id}: 16 examples" in said
    assert page.params["questions"] == 8
    members = _cli_members(
        capsys, path, "--db", app_env["tmp"] / "cli.db", "--size", 8, "--seed", 9, "--design", "paired"
    )
    assert list(page.members) == members
