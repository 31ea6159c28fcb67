"""Issue 38: ``export --labels gold`` writes the rows its labellers agreed on as loaded from the data's Arrow
columns (:func:`ragviz.export.columnar.plain_rows`, :func:`~ragviz.export.columnar.gold_provenance`); its JSONL,
Parquet and metrics CSV are byte for byte those of the per-row path (every example built, every row a dict), on the
sample data, two RAGBench shards and synthetic rounds with decisions outside the round, an adjudicated example, a
repeated sentence key, unlabeled rows, audit members and examples nobody finished."""

from __future__ import annotations

import gc
import io

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.labelsets.selection import GOLD
from ragviz.analysis.team import table as table_module
from ragviz.analysis.team.adjudicate import settle_example, shown_now
from ragviz.analysis.team.table import current_round_table
from ragviz.data.dataset import Dataset
from ragviz.data.load import load
from ragviz.data.ragbench import LABEL_FIELDS
from ragviz.export.files import metrics_records_csv, write_export
from ragviz.export.rows import export_batches, exported_batches
from ragviz.export.targets import Target, export
from ragviz.store.label_store import LabelStore
from tests.analysis.team.test_team_table import ACCEPT, _decide
from tests.export.test_columnar import _reference, _reference_metrics
from tests.ragbench_data import require_ragbench, shard
from tests.sample import SAMPLE_JSONL
from tests.synthetic import make_synthetic


@pytest.fixture(autouse=True)
def _columns_from_any_size(monkeypatch):
    """These small rounds are counted on columns too, as a round of 1,000 examples or more is."""
    monkeypatch.setattr(table_module, "COLUMNS_FROM", 0)


def _on_columns(dataset: Dataset, store: LabelStore) -> int:
    """Gold rows the export writes from columns."""
    batches = export_batches(dataset, store, GOLD, batch_size=64)
    return sum(sum(s == "agreed" for s in b.provenance.label_source) for b in batches if b.provenance is not None)


def _assert_same_gold_export(dataset: Dataset, store: LabelStore, tmp_path, batch_sizes=(7, 2048)) -> None:
    old_jsonl, old_table = _reference(dataset, store, GOLD)
    items = [item for _, items in exported_batches(dataset, store, GOLD, light=False) for item in items]
    n_gold = sum(1 for i in items if i.current is not None and i.label_source in ("agreed", "adjudicated"))
    assert n_gold, "the round has gold rows"
    for batch_size in batch_sizes:
        buf = io.BytesIO()
        assert write_export(dataset, store, GOLD, "jsonl", buf, batch_size=batch_size) == (len(dataset), n_gold)
        assert buf.getvalue().decode() == old_jsonl.decode()
        out = tmp_path / f"gold{batch_size}.parquet"
        assert write_export(dataset, store, GOLD, "parquet", out, batch_size=batch_size) == (len(dataset), n_gold)
        new_table = pq.read_table(out)
        assert new_table.schema.equals(old_table.schema), (new_table.schema, old_table.schema)
        assert new_table.equals(old_table)
    # what `ragviz export --labels gold` and the Export page run (ragviz.export.targets.export)
    for fmt in ("jsonl", "parquet", "csv"):
        path = tmp_path / f"gold.{fmt}"
        done = export(store, GOLD, dataset, Target(str(path), fmt))
        assert (done.n_rows, done.n_human) == (len(dataset), n_gold)
        if fmt == "jsonl":
            assert path.read_bytes() == old_jsonl
        elif fmt == "parquet":
            assert pq.read_table(path).equals(old_table)
        else:
            assert path.read_text(encoding="utf-8") == metrics_records_csv(_reference_metrics(dataset, store, GOLD))
    assert gc.isenabled()  # comparing the round pauses the cycle collector, and only while it runs


def _settle_first(dataset: Dataset, store: LabelStore) -> str:
    """An adjudicator settles the first example waiting, taking the first labeller's values."""
    first = current_round_table(dataset, store).queue()[0]
    ex = dataset.example(dataset.index_of(first))
    r, seen = shown_now(ex, store)
    settle_example(ex, store, "lead", {u: r.values[next(iter(r.values))][k] for k, u in enumerate(r.units)}, seen)
    return first


def test_sample_gold_export_on_columns_is_the_per_row_export(tmp_path):
    ds = load([str(SAMPLE_JSONL)]).dataset
    with LabelStore(tmp_path / "labels.db") as store:
        uids = _decide(store, ds, len(ds), overlap=3)
        assert _on_columns(ds, store) > 0
        _assert_same_gold_export(ds, store, tmp_path)
        settled = _settle_first(ds, store)
        store.judge.save(uids[1], ds.example(1).labels)  # a stored judge label set: row by row
        store.audits.draw_sample(list(ds.uids), len(ds) // 2, "lead", seed=4)  # audit members among the gold rows
        assert current_round_table(ds, store).state(settled) == "gold (adjudicated)"
        _assert_same_gold_export(ds, store, tmp_path)


@pytest.mark.parametrize("subset", ["covidqa", "hotpotqa"])
def test_ragbench_gold_export_on_columns_is_the_per_row_export(tmp_path, subset):
    require_ragbench()
    ds = load([str(shard(subset))]).dataset
    with LabelStore(tmp_path / "labels.db") as store:
        _decide(store, ds, 120)
        assert _on_columns(ds, store) > 60
        _settle_first(ds, store)
        store.audits.draw_sample(list(ds.uids), 40, "lead", seed=9)
        _assert_same_gold_export(ds, store, tmp_path, batch_sizes=(50,))


def test_synthetic_round_gold_export_on_columns_is_the_per_row_export(tmp_path):
    """Decisions outside the round's assignments, an adjudicated example, examples nobody finished (every 17th),
    rows with a context sentence key twice (compared one by one) and unlabeled rows."""
    parquet = make_synthetic().write(300, str(tmp_path / "syn"), seed=3, jsonl=False)[0]
    rows = [
        {k: v for k, v in r.items() if not k.startswith("_")} for r in load([str(parquet)]).dataset.table.to_pylist()
    ]
    for k, row in enumerate(rows):
        if k % 23 == 5 and row.get("documents_sentences"):  # a sentence key twice
            row["documents_sentences"][0] = [*row["documents_sentences"][0], row["documents_sentences"][0][0]]
        elif k % 29 == 6:
            for name in LABEL_FIELDS:
                row[name] = None
    ds = Dataset.from_rows(rows, "syn", str(tmp_path / "rows.parquet"))
    with LabelStore(tmp_path / "labels.db") as store:
        _decide(store, ds, 280)
        for uid in (ds.uids[0], ds.uids[290]):  # outside the round's assignments
            store.record(uid, "dee", ACCEPT, example=ds.example(ds.index_of(uid)))
        _settle_first(ds, store)
        store.audits.draw_sample(list(ds.uids), 100, "lead", seed=2)
        table = current_round_table(ds, store)
        repeated = [ds.uids[k] for k in range(5, 280, 23)]
        assert not any(table.on_columns[table.uids.index(uid)] for uid in repeated)
        assert any(table.state(uid) == "gold (agreed)" for uid in repeated)  # gold, written row by row
        assert table.state(ds.uids[0]) == "in progress"  # every 17th: its last labeller never decided
        assert _on_columns(ds, store) > 150
        _assert_same_gold_export(ds, store, tmp_path, batch_sizes=(1, 64, 2048))
