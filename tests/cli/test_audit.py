"""`ragviz audit draw / status` and `ragviz estimate` over stratified and active samples (issue 23, items 2, 3, 5
and 7), on real RAGBench rows with a judge-confidence column."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.audits.design_estimate import design_info
from ragviz.analysis.audits.designs import DesignError
from ragviz.analysis.audits.samples import draw_design, grow_design
from ragviz.analysis.estimates.pairing import member_rows, pair_store
from ragviz.cli.main import main
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.ragbench_data import require_ragbench, shard


@pytest.fixture(scope="module")
def data_file(tmp_path_factory) -> Path:
    require_ragbench()
    rows = [*pq.read_table(shard("covidqa")).to_pylist()[:150], *pq.read_table(shard("hagrid")).to_pylist()[:150]]
    for i, r in enumerate(rows):  # the judge is unsure where the answer has unsupported sentences, and on every 7th
        r["judge_confidence"] = 0.55 if (r.get("unsupported_response_sentence_keys") or i % 7 == 0) else 0.97
    path = tmp_path_factory.mktemp("audit") / "judged.jsonl"
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_draw_is_the_pages_draw_and_grows(tmp_path, capsys, data_file):
    db = tmp_path / "labels.db"
    code, out, _ = _run(
        capsys,
        "audit",
        "draw",
        data_file,
        "--db",
        db,
        "--size",
        40,
        "--design",
        "stratified",
        "--by",
        "dataset_name",
        "--seed",
        3,
        "--format",
        "json",
        "--annotator",
        "ana",
    )
    assert code == 0
    drawn = json.loads(out)
    assert drawn["design"] == "stratified" and drawn["size"] == 40
    assert drawn["params"]["counts"] == {"covidqa_test": 20, "hagrid_test": 20}
    assert all(m["inclusion_probability"] == pytest.approx(20 / 150) for m in drawn["members"])
    dataset = load([data_file]).dataset
    with LabelStore(tmp_path / "other.db") as other:  # what the Review page's draw gives for the same seed
        page = draw_design(other, dataset, "stratified", 40, "ben", 3, "dataset_name")
    assert [m["uid"] for m in drawn["members"]] == list(page.members)
    code, out, _ = _run(
        capsys, "audit", "draw", data_file, "--db", db, "--size", 60, "--grow", drawn["sample"], "--format", "json"
    )
    grown = json.loads(out)
    assert code == 0 and grown["size"] == 60
    assert [m["uid"] for m in grown["members"][:40]] == [m["uid"] for m in drawn["members"]]


def test_active_draw_prefers_unsure_examples(tmp_path, capsys, data_file):
    code, out, _ = _run(
        capsys,
        "audit",
        "draw",
        data_file,
        "--db",
        tmp_path / "l.db",
        "--size",
        60,
        "--design",
        "active",
        "--seed",
        9,
        "--format",
        "json",
    )
    assert code == 0
    drawn = json.loads(out)
    rows = {json.loads(line)["id"]: json.loads(line) for line in data_file.read_text().splitlines()}
    unsure = sum(1 for m in drawn["members"] if rows[m["uid"].split("/")[1]]["judge_confidence"] < 0.9)
    share_unsure = sum(1 for r in rows.values() if r["judge_confidence"] < 0.9) / len(rows)
    assert unsure / len(drawn["members"]) > share_unsure + 0.1
    assert all(0 < m["inclusion_probability"] <= 1 for m in drawn["members"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--design", "active", "--confidence", "nope"], "no judge confidence column 'nope' in the data"),
        (["--design", "stratified"], "needs a column to stratify by"),
        (["--design", "stratified", "--by", "colour"], "no column 'colour' to stratify by"),
        (["--design", "active", "--floor", "0"], "inclusion probability 0"),
        (["--design", "stratified", "--by", "id"], "cannot give each of the 300 strata its 2 audited examples"),
        (
            ["--design", "stratified", "--by", "dataset_name", "--allocation", "neyman", "--pilot", "9"],
            "no audit sample 9 to take the pilot from",
        ),
        (["--design", "active", "--pilot", "9"], "no audit sample 9"),
    ],
)
def test_bad_draws_are_one_clear_line(tmp_path, capsys, data_file, extra, message):
    code, out, err = _run(capsys, "audit", "draw", data_file, "--db", tmp_path / "l.db", "--size", 40, *extra)
    assert code == 2 and message in err and "Traceback" not in err and out == ""


def test_a_pilot_without_reviews_per_stratum_is_refused(tmp_path, capsys, data_file):
    db = tmp_path / "l.db"
    dataset = load([data_file]).dataset
    with LabelStore(db) as store:
        pilot = draw_design(store, dataset, "uniform", 20, "ana", 1)
        _review_members(store, dataset, [u for u in pilot.members if u.startswith("covidqa")])
        with pytest.raises(DesignError, match="a pilot sets Neyman allocation's spreads"):
            draw_design(store, dataset, "stratified", 20, "ana", 1, "dataset_name", pilot=pilot)
    code, out, err = _run(
        capsys, "audit", "draw", data_file, "--db", db, "--size", 40, "--design", "stratified", "--by",
        "dataset_name", "--allocation", "neyman", "--pilot", pilot.id,
    )  # fmt: skip
    assert code == 2 and out == "" and "Traceback" not in err
    assert (
        f"pilot sample {pilot.id} by 'dataset_name': the pilot has fewer than two audited examples in stratum hagrid_test"
        in err
    )


def _review_members(store, dataset, uids, who="ana"):
    for row in member_rows(dataset, uids):
        ex = dataset.example(row)
        changes = [Change(REVIEW_FIELD, None, REVIEWED)]
        if row % 4 == 0:  # people disagree with the judge on some: no relevant sentence
            changes.insert(0, Change("relevant_keys", field_value(store.current_labels(ex, who), "relevant_keys"), []))
        store.record(ex.uid, who, changes, example=ex)


@pytest.mark.parametrize("design", ["stratified", "active"])
def test_status_and_estimate_name_the_design_effective_n_and_saving(tmp_path, capsys, data_file, design):
    db = tmp_path / "labels.db"
    dataset = load([data_file]).dataset
    with LabelStore(db) as store:
        sample = draw_design(store, dataset, design, 120, "ana", 5, "dataset_name")
        _review_members(store, dataset, sample.members)
    code, out, _ = _run(capsys, "audit", "status", "--db", db, "--format", "json")
    status = json.loads(out)["samples"][0]
    assert code == 0 and status["design"] == design and status["reviewed"] == sample.size
    code, out, err = _run(capsys, "estimate", data_file, "--db", db, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["design"]["name"] == design and got["design"]["sample"] == sample.id
    for name in ("relevance", "utilization", "completeness", "adherence"):
        m = got["metrics"][name]
        low, high = m["ppi"]["ci"]
        assert 0.0 <= low <= m["ppi"]["estimate"] <= high <= 1.0
        # both designs get Student's t around the cross-fitted estimate (issue 36), where people never disagreed
        # over the floored variance the tuned interval has
        assert m["ppi"]["interval"] == "t", name
        assert m["ppi"]["lambda_rule"] in ("cross-fitted (5 folds)", "tuned on the audit"), name
        assert m["design"]["effective_n"] <= len(dataset)
        assert m["design"]["uniform_equivalent"] is not None, (name, m)
        assert m["design"]["uniform_equivalent"] >= 100  # never a uniform audit too small for a corrected figure
    code, out, _ = _run(capsys, "estimate", data_file, "--db", db)
    by = " by dataset_name" if design == "stratified" else ""
    assert code == 0 and f"design: {design} audit{by} (sample {sample.id})" in out
    assert "a uniform audit would need" in out
    # the header names the interval every metric got: Student's t for either design (issue 36)
    assert "t interval" in out and "bootstrap-t" not in out
    code, out, _ = _run(capsys, "estimate", data_file, "--db", db, "--interval", "normal", "--format", "json")
    assert code == 0 and {m["ppi"]["interval"] for m in json.loads(out)["metrics"].values()} == {"normal"}


def test_active_draw_calibrated_on_a_pilot(tmp_path, capsys, data_file):
    """An active sample calibrated on a pilot: refused until ten pilot members are reviewed, then drawn from the
    calibrated spreads (recorded with the sample, so the CLI's draw of the same seed and its growth agree)."""
    db = tmp_path / "labels.db"
    dataset = load([data_file]).dataset
    with LabelStore(db) as store:
        pilot = draw_design(store, dataset, "uniform", 60, "ana", 2)
        _review_members(store, dataset, pilot.members[:5])
        with pytest.raises(DesignError, match="needs at least 10"):
            draw_design(store, dataset, "active", 40, "ana", 1, pilot=pilot)
        _review_members(store, dataset, pilot.members[5:])
        drawn = draw_design(store, dataset, "active", 40, "ana", 1, pilot=pilot)
    calibration = drawn.params["calibration"]
    assert drawn.params["pilot"] == {"sample": pilot.id, "metric": "trace"}
    assert calibration["n_pilot"] >= 10 and "relevance" in calibration["terms"]
    # the floor is the one the pilot's reviews say draws least variably (issue 36 item 8), kept with the sample
    relative = drawn.params["floor_from_pilot"]
    assert drawn.params["floor"] == float(min(relative, key=lambda f: (relative[f], -float(f))))
    code, out, err = _run(
        capsys, "audit", "draw", data_file, "--db", db, "--size", 40, "--design", "active", "--pilot", pilot.id,
        "--seed", 1, "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    again = json.loads(out)
    assert [m["uid"] for m in again["members"]] == list(drawn.members)
    code, out, err = _run(capsys, "audit", "draw", data_file, "--db", db, "--grow", again["sample"], "--size", 80)
    assert code == 0, err
    with LabelStore(db) as store:
        grown = store.audits.get_sample(again["sample"])
    assert grown is not None and set(drawn.members) <= set(grown.members) and grown.params["calibration"] == calibration
    assert grown.params["floor"] == drawn.params["floor"]
    assert set(drawn.params["pilot_weights"]) == set(pilot.members)  # each pilot member's own chance, kept
    assert grown.params["pilot_weights"] == pytest.approx(drawn.params["pilot_weights"])


def test_a_calibrated_active_sample_counts_its_pilots_reviews(tmp_path, capsys, data_file):
    """The pilot's reviews join the active sample's as one audit, each example at its chance of being in either
    sample: every review counts. A sample drawn before the pilot's chances were kept is estimated in two batches."""
    db = tmp_path / "labels.db"
    dataset = load([data_file]).dataset
    with LabelStore(db) as store:
        pilot = draw_design(store, dataset, "uniform", 40, "ana", 2)
        _review_members(store, dataset, pilot.members)
        active = draw_design(store, dataset, "active", 60, "ana", 1, pilot=pilot)
        _review_members(store, dataset, active.members)
        pairing = pair_store(dataset, store, [*active.members, *pilot.members])
    info = design_info(pairing, active, pilot=pilot)
    share, level = len(pilot.members) / len(dataset), active.params["level"]
    chance = {**active.params["pilot_weights"], **{m.uid: m.selection_weight for m in active.member_details()}}
    assert info.batches == () and set(info.probabilities or {}) == {*pilot.members, *active.members}
    # drawn on top of the pilot (issue 36 item 8): the union's chance is max(pilot's, the calibrated rule's)
    assert active.params["base"] == pytest.approx(share)
    for uid, pi in (info.probabilities or {}).items():
        assert pi == pytest.approx(max(share, min(1.0, level * chance[uid])), rel=1e-9)
    added = {k: v for k, v in active.params.items() if k not in ("pilot_weights", "base")}
    older = replace(active, params=added)  # drawn on its own before the top-up and the pilot's chances were kept
    assert len(design_info(pairing, older, pilot=pilot).batches) == 2
    with pytest.raises(DesignError, match=f"tops up the chances of uniform pilot {pilot.id}"):
        design_info(pairing, active, pilot=None)  # the pilot gone: its examples could not be drawn by this sample
    code, out, err = _run(capsys, "estimate", data_file, "--db", db, "--sample", active.id, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["design"]["name"] == "active" and got["design"]["pilot"] == pilot.id
    assert got["n_labeled"] == len({*pilot.members, *active.members})
    rules = {m["ppi"]["lambda_rule"] for m in got["metrics"].values()}  # issue 36 item 5: λ cross-fitted here too
    assert "cross-fitted (5 folds)" in rules and rules <= {"cross-fitted (5 folds)", "tuned on the audit"}
    for name in ("relevance", "adherence"):
        low, high = got["metrics"][name]["ppi"]["ci"]
        assert 0.0 <= low <= got["metrics"][name]["ppi"]["estimate"] <= high <= 1.0
    code, out, err = _run(capsys, "estimate", data_file, "--db", db, "--sample", active.id)
    assert code == 0, err
    assert f"active audit (sample {active.id}) with its pilot, sample {pilot.id}" in out
    with LabelStore(db) as store:  # the pilot grown after the draw: its new members have no kept chance
        grown = grow_design(store, dataset, pilot, 60, "ana")
        _review_members(store, dataset, grown.members[40:])
        pairing = pair_store(dataset, store, [*active.members, *grown.members])
    assert len(design_info(pairing, older, pilot=grown).batches) == 2
    later = design_info(pairing, active, pilot=grown)  # topped up: the pilot as it was drawn on, one audit
    assert later.batches == () and not set(grown.members[40:]) - set(active.members) & set(later.probabilities or {})
    assert any("joined pilot" in w for w in later.warnings)


def test_growing_an_active_sample_keeps_its_members_weights_or_refuses(tmp_path, data_file):
    # issue 36 item 6: a grown active sample's stored members keep the selection weights they were drawn with; if the
    # confidences changed since the draw, growing is refused and says which example's weight would change
    from ragviz.analysis.audits.designs import DesignError

    dataset = load([data_file]).dataset
    with LabelStore(tmp_path / "l.db") as store:
        sample = draw_design(store, dataset, "active", 40, "ana", 5)
        grown = grow_design(store, dataset, sample, 60, "ana")
        before = {m.uid: m.selection_weight for m in sample.member_details()}
        after = {m.uid: m.selection_weight for m in grown.member_details()}
        assert set(before) <= set(after) and all(after[u] == pytest.approx(before[u], rel=1e-12) for u in before)
        rows = [json.loads(line) for line in data_file.read_text().splitlines()]
        rows[0]["judge_confidence"] = 0.2 if rows[0]["judge_confidence"] > 0.5 else 0.99  # the judge re-run
        changed = tmp_path / "changed.jsonl"
        changed.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        with pytest.raises(
            DesignError, match=rf"cannot grow sample {grown.id}: the 'judge_confidence' confidences changed"
        ):
            grow_design(store, load([changed]).dataset, grown, 80, "ana")
        assert len(store.audits.get_sample(grown.id).members) == len(grown.members)  # nothing stored


def test_an_active_sample_drawn_before_salts_grows_with_its_own_ranking(tmp_path, data_file):
    # issue 36 item 2: samples stored without a salt keep the unsalted ranking they were drawn with
    from ragviz.analysis.audits.designs import active_draw
    from ragviz.analysis.audits.samples import confidence_of

    dataset = load([data_file]).dataset
    confidence = confidence_of(dataset)
    old = active_draw(dataset.uids, confidence, 40, 5, salt="")
    params = {k: v for k, v in old.params.items() if k != "salt"} | {"confidence": "judge_confidence"}
    with LabelStore(tmp_path / "l.db") as store:
        stored = store.audits.save_designed_sample(dataset.uids, old.members, "active", params, "ana", 5)
        grown = grow_design(store, dataset, stored, 60, "ana")
    assert list(grown.members) == active_draw(dataset.uids, confidence, 60, 5, salt="").uids
    assert list(grown.members) != active_draw(dataset.uids, confidence, 60, 5).uids


def test_a_draw_that_shares_a_stored_samples_seed_says_what_that_means(tmp_path, capsys, data_file):
    # issue 36 item 2: a pilot and an active sample of one seed, and a re-draw with the seed of an active sample
    # drawn before salts, each get a note naming the other sample and the members they share
    from ragviz.analysis.audits.designs import active_draw
    from ragviz.analysis.audits.samples import confidence_of

    db = tmp_path / "labels.db"
    dataset = load([data_file]).dataset
    old = active_draw(dataset.uids, confidence_of(dataset), 40, 3, salt="")
    params = {k: v for k, v in old.params.items() if k != "salt"} | {"confidence": "judge_confidence"}
    with LabelStore(db) as store:
        pilot = draw_design(store, dataset, "uniform", 40, "ana", 3)
        before = store.audits.save_designed_sample(dataset.uids, old.members, "active", params, "ana", 3)
    code, out, err = _run(
        capsys, "audit", "draw", data_file, "--db", db, "--size", 40, "--design", "active", "--seed", 3,
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    got = json.loads(out)
    uids = {m["uid"] for m in got["members"]}
    with_pilot, with_old = (
        next(n for n in got["notes"] if f"sample {s.id}'s" in n) for s in (pilot, before)
    )  # one note per stored sample of seed 3
    assert f"{len(uids & set(pilot.members))} of this sample's {len(uids)} examples are also in sample {pilot.id}" in (
        with_pilot
    )
    assert "overlap as independent draws would" in with_pilot and "about 5 expected by chance" in with_pilot
    assert f"sample {before.id} was drawn before each design ranked the examples with its own salt" in with_old
    assert "grow it instead" in with_old
    code, out, err = _run(capsys, "audit", "draw", data_file, "--db", db, "--size", 40, "--seed", 3)
    assert code == 0, err
    assert f"note: Seed 3 is also sample {pilot.id}'s (uniform), with the same ranking: 40 of this sample's 40" in out
    code, out, err = _run(capsys, "audit", "draw", data_file, "--db", db, "--size", 40, "--seed", 4)
    assert code == 0 and "note:" not in out
