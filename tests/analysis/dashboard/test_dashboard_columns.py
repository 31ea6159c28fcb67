"""Issue 11: the Dashboard on columns gives what it gave when it built every example.

Every figure of :func:`ragviz.analysis.dashboard.figures.dashboard_data` is checked against the same figure
computed the per-example way (every row an ``Example``, ``trace_scores`` per example,
``leverage_by_metric``, ``subset_means`` of dicts, ``baseline_table_against``), on the RAGBench shards
with decisions of two annotators and a judge label set in the store, and on synthetic rows."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from ragviz.analysis import stats
from ragviz.analysis.dashboard import families
from ragviz.analysis.dashboard import figures as dashboard
from ragviz.analysis.dashboard.baselines import baseline_table_against, baseline_table_of_scores
from ragviz.analysis.dashboard.rows import row_figures
from ragviz.analysis.dashboard.triage import best_move_sizes, best_moves, leverage_by_metric
from ragviz.analysis.labelsets.named import JUDGE, resolve_label_set
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.data.dataset import Dataset, iter_examples
from ragviz.data.label_columns import label_columns
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.data.model import Provenance
from ragviz.data.ragbench import UNSUPPORTED, labels_to_row
from ragviz.metrics.trace import TRACE_METRICS, trace_scores
from ragviz.store.label_store import LabelStore
from tests.analysis.test_scale import _awkward, _bootstrap_whole_matrix
from tests.ragbench_data import require_ragbench
from tests.sample import ROOT
from tests.synthetic import make_synthetic


@pytest.fixture(scope="module")
def shards() -> Dataset:
    return load(require_ragbench()).dataset


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> Dataset:
    out = tmp_path_factory.mktemp("syn") / "syn"
    paths = make_synthetic().write(400, str(out), seed=5, batch=128, jsonl=False)
    return load(paths[0]).dataset


def _nan_to_none(value: float) -> float | None:
    return None if value != value else float(value)


def _same_tables(got: list[dict] | None, want: list[dict] | None) -> None:
    """Equal tables of figures (floats to 1e-12: AUROC is no longer scikit-learn's arithmetic)."""
    assert got is not None and want is not None and len(got) == len(want)
    for a, b in zip(got, want):
        assert list(a) == list(b) and a["dataset"] == b["dataset"]
        for key in a:
            if key != "dataset":
                assert a[key] == pytest.approx(b[key], rel=1e-12, abs=1e-12), (a["dataset"], key)


# -- per-row figures ------------------------------------------------------------------------------


@pytest.mark.parametrize("data", ["shards", "synthetic"])
def test_row_scores_are_trace_scores_of_every_example_and_the_authors_scores(data, request):
    dataset = request.getfixturevalue(data)
    figures = row_figures(dataset)
    for i, ex in iter_examples(dataset):
        want = trace_scores(ex.labels, ex.n_context_sentences)
        assert [_nan_to_none(figures.scores[m][i]) for m in TRACE_METRICS] == [getattr(want, m) for m in TRACE_METRICS]
        if data == "shards":  # the dataset authors' stored scores, exactly
            stored = ex.extra
            assert figures.scores["relevance"][i] == stored["relevance_score"] or (
                math.isnan(figures.scores["relevance"][i]) and stored.get("relevance_score") is None
            )
            assert figures.scores["utilization"][i] == stored["utilization_score"]
            assert figures.scores["completeness"][i] == stored["completeness_score"]
            assert figures.scores["adherence"][i] == float(stored["adherence_score"])


def _rows_with(dataset: Dataset, labels_of) -> pa.Table:
    """The label columns of *dataset* replaced by ``labels_of(i, example)`` (``None``: unlabeled),
    with the stored unsupported list left null where the labels hold none."""
    rows = []
    for i, ex in iter_examples(dataset):
        labels = labels_of(i, ex)
        row = {
            "documents_sentences": [[[s.key, s.text] for s in doc] for doc in ex.document_sentences],
            "response_sentences": [[s.key, s.text] for s in ex.response_sentences],
            **labels_to_row(labels),
        }
        if labels is not None and labels.unsupported_keys is None:
            row[UNSUPPORTED] = None
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=_LABEL_SCHEMA)


_STRINGS = pa.list_(pa.string())
_LABEL_SCHEMA = pa.schema(
    [
        ("documents_sentences", pa.list_(pa.list_(_STRINGS))),
        ("response_sentences", pa.list_(_STRINGS)),
        ("all_relevant_sentence_keys", _STRINGS),
        ("all_utilized_sentence_keys", _STRINGS),
        (
            "sentence_support_information",
            pa.list_(
                pa.struct(
                    [
                        ("explanation", pa.string()),
                        ("fully_supported", pa.bool_()),
                        ("response_sentence_key", pa.string()),
                        ("supporting_sentence_keys", _STRINGS),
                    ]
                )
            ),
        ),
        ("unsupported_response_sentence_keys", _STRINGS),
        ("relevance_explanation", pa.string()),
        ("overall_supported_explanation", pa.string()),
        ("overall_supported", pa.bool_()),
    ]
)


@pytest.mark.parametrize("data", ["shards", "synthetic"])
@pytest.mark.parametrize("awkward", [False, True])
def test_move_sizes_on_columns_are_those_of_best_moves(data, awkward, request):
    """The size of the single change best_moves picks, for every row and metric: the labels as
    stored, and label sets real data has (duplicate and stray keys, no stored unsupported list,
    undecided verdicts, a repeated support entry, unlabeled rows)."""
    dataset = request.getfixturevalue(data)

    def labels_of(i, ex):
        if not awkward or ex.labels is None:
            return ex.labels
        return None if i % 11 == 5 else _awkward(ex, ex.labels, i)

    table = _rows_with(dataset, labels_of)
    sizes = best_move_sizes(table, label_columns(table), np.asarray(dataset.n_context_sentences))
    for i, ex in iter_examples(dataset):
        labels = labels_of(i, ex)
        if labels is None:
            assert all(math.isnan(sizes[m][i]) for m in TRACE_METRICS)
            continue
        moves = best_moves(ex, labels)
        assert [sizes[m][i] for m in TRACE_METRICS] == [abs(moves[m][1]) if m in moves else 0.0 for m in TRACE_METRICS]


# -- the whole Dashboard against the per-example way -------------------------------------------------


def _per_example_dashboard(dataset: Dataset, against: str, store: LabelStore, top: int = 10):
    """What the Dashboard computed before issue 11: every row an Example."""
    examples = dict(iter_examples(dataset))
    judge = resolve_label_set(dataset, JUDGE, store, examples=examples)
    current = resolve_label_set(dataset, against, store, scope="all", examples=examples)
    records = []
    for i, ex in examples.items():
        scores = trace_scores(current.labels.get(i), ex.n_context_sentences)
        records.append({"uid": ex.uid, "dataset": ex.dataset, **{m: getattr(scores, m) for m in TRACE_METRICS}})
    means = []
    from ragviz.metrics.summary import subset_groups

    for name, rows in subset_groups(records, lambda r: r["dataset"]):
        for m in TRACE_METRICS:
            ci = stats.bootstrap_mean_ci([r[m] for r in rows if r[m] is not None], n_resamples=1000)
            means.append(
                {
                    "dataset": name,
                    "metric": m,
                    "mean": ci.mean,
                    "low": ci.low,
                    "high": ci.high,
                    "n": ci.n,
                    "too_few": ci.too_few,
                }
            )
    items = [(i, examples[i], current.labels.get(i)) for i in examples]
    reviewed = resolve_label_set(dataset, against, store, scope="reviewed", examples=examples)
    return {
        "records": records,
        "means": means,
        "baselines": baseline_table_against(dataset, current),
        "leverage": leverage_by_metric(items, TRACE_METRICS, top, reviewed=set(reviewed.labels)),
        "judge": judge,
    }


@pytest.fixture(scope="module")
def decided_store(shards, tmp_path_factory):
    """Two annotators' decisions (one clears a row's labels' relevant keys, one flips a verdict)
    and a judge label set saved for a third row."""
    db = tmp_path_factory.mktemp("store") / "labels.db"
    with LabelStore(db) as store:
        for i in range(0, len(shards), 97):
            ex = shards.example(i)
            if ex.labels is None:
                continue
            store.record(ex.uid, "ann", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
            if i % 2 == 0:
                store.record(ex.uid, "bob", [Change("utilized_keys", list(ex.labels.utilized_keys), ["0a"])])
        ex = shards.example(5)
        store.judge.save(ex.uid, ex.labels.replace(relevant_keys=(), provenance=Provenance("llm", "v2")))
    return db


@pytest.mark.parametrize("against", [HUMAN, LabelSelection.of("ann"), LabelSelection.of("bob")])
def test_dashboard_on_columns_gives_the_per_example_figures(shards, decided_store, against):
    with LabelStore(decided_store) as store:
        got = dashboard.dashboard_data(shards, against, store)
        want = _per_example_dashboard(shards, against, store)
    records = got.records.to_dict("records")
    assert [{k: _nan_to_none(v) if k in TRACE_METRICS else v for k, v in r.items()} for r in records] == want["records"]
    assert got.means == want["means"]  # the same bootstrap draws: identical intervals
    _same_tables(got.baselines, want["baselines"])
    assert got.leverage == want["leverage"]
    assert got.n_reviewed > 0 and got.judge_agreement.n_examples == got.n_reviewed


def test_a_reviewed_export_is_scored_example_by_example_with_the_same_figures(shards, tmp_path):
    """Rows whose labels are not all the judge's (``label_source`` human, ``llm_`` copies) take the
    per-example path; the figures are the per-example ones still."""
    from ragviz.data.ragbench import LLM_PREFIX

    table = shards.table.slice(0, 300)
    rows = table.to_pylist()
    for i, row in enumerate(rows):
        if i % 5 == 0 and row["all_relevant_sentence_keys"]:
            for name in ("all_relevant_sentence_keys", "all_utilized_sentence_keys"):
                row[LLM_PREFIX + name] = row[name]
            row["all_relevant_sentence_keys"] = row["all_relevant_sentence_keys"][:1]
            row["label_source"] = "human"
    dataset = Dataset(pa.Table.from_pylist(rows))
    with LabelStore(tmp_path / "labels.db") as store:
        ex = dataset.example(1)
        store.record(ex.uid, "ann", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
        got = dashboard.dashboard_data(dataset, HUMAN, store)
        want = _per_example_dashboard(dataset, HUMAN, store)
    records = got.records.to_dict("records")
    assert [{k: _nan_to_none(v) if k in TRACE_METRICS else v for k, v in r.items()} for r in records] == want["records"]
    assert got.means == want["means"] and got.leverage == want["leverage"]
    assert got.n_reviewed >= 2


def test_dashboard_builds_examples_only_for_decided_rows(shards, decided_store, monkeypatch):
    import ragviz.data.ragbench as ragbench

    built = []
    real = ragbench.example_from_row
    monkeypatch.setattr(ragbench, "example_from_row", lambda row, *a, **k: built.append(1) or real(row, *a, **k))
    import ragviz.data.dataset as dataset_module

    monkeypatch.setattr(dataset_module, "example_from_row", ragbench.example_from_row)
    with LabelStore(decided_store) as store:
        decided = len(resolve_label_set(shards, HUMAN, store).labels)
        built.clear()  # count what the Dashboard builds, not this test's own label set (alone it built 29 more)
        data = dashboard.dashboard_data(shards, HUMAN, store)
    # the decided rows, the stored-judge row, and the few rows the triage lists name
    listed = {x.index for found in data.leverage.values() for x in found}
    assert len(built) <= decided + 1 + len(listed) + len(data.disagreements)
    assert len(built) < len(shards) / 10


def test_one_decision_changes_one_row_of_the_figures(shards):
    base = row_figures(shards)
    before = {m: v.copy() for m, v in base.scores.items()}
    i = next(i for i in range(len(shards)) if shards.example(i).labels and shards.example(i).labels.relevant_keys)
    ex = shards.example(i)
    after = base.with_rows({i: (ex, ex.labels.replace(relevant_keys=()))})
    for m in TRACE_METRICS:
        assert np.array_equal(base.scores[m], before[m], equal_nan=True)  # the cached figures are not touched
        changed = np.flatnonzero(~np.isclose(after.scores[m], base.scores[m], equal_nan=True))
        assert set(changed.tolist()) <= {i}
    assert after.scores["relevance"][i] == 0.0 != base.scores["relevance"][i]


# -- intervals, families, charts ----------------------------------------------------------------------


def test_shared_draws_give_each_metrics_own_interval_exactly(shards):
    figures = row_figures(shards)
    samples = [v[~np.isnan(v)] for v in figures.scores.values()]
    together = stats.bootstrap_mean_cis(samples, n_resamples=2000)
    for values, ci in zip(samples, together):
        assert ci == stats.bootstrap_mean_ci(values.tolist(), n_resamples=2000)
        if set(values.tolist()) <= {0.0, 1.0}:  # 0/1 values (adherence): the Wilson interval (test_mean_minimum)
            continue
        low, high = _bootstrap_whole_matrix(values.tolist(), n_resamples=2000)
        assert (ci.low, ci.high) == (low, high)  # the B x n matrix of before, bit for bit


def test_large_samples_by_the_poisson_bootstrap_have_the_bootstraps_distribution():
    rng = np.random.default_rng(4)
    n = stats.LARGE_SAMPLE * 2
    for values in (rng.random(n) < 0.3, rng.integers(0, 40, n) / 40, rng.random(n)):
        values = values.astype(float)
        by_counts = stats.bootstrap_mean_ci(values, n_resamples=2000)
        low, high = _bootstrap_whole_matrix(values, n_resamples=2000)
        se = values.std() / math.sqrt(n)
        assert abs(by_counts.low - low) < 0.25 * se and abs(by_counts.high - high) < 0.25 * se
        assert by_counts.mean == values.mean()


def test_auroc_and_kappa_are_scikit_learns(shards):
    from sklearn.metrics import cohen_kappa_score, roc_auc_score

    figures = row_figures(shards)
    truth = (figures.scores["adherence"] == 0.0).tolist()
    pred = [0.0 if v is None or v != v else 1 - v for v in shards.table.column("trulens_groundedness").to_pylist()]
    assert stats.auroc(truth, pred) == pytest.approx(roc_auc_score(truth, pred), abs=1e-12)
    a = (figures.scores["completeness"] > 0.5).tolist()
    b = (figures.scores["utilization"] > 0.1).tolist()
    assert stats.cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_dashboard_path_does_not_import_scikit_learn(decided_store):
    """Its first import took several seconds of the first Dashboard (AUROC of the baselines, kappa)."""
    code = (
        "import sys, ragviz.analysis.dashboard.figures as d; from ragviz.data.load import load; "
        "from ragviz.store.label_store import LabelStore; "
        f"ds = load({str(require_ragbench())!r}).dataset; store = LabelStore({str(decided_store)!r}); "
        "from ragviz.analysis.labelsets.selection import HUMAN; data = d.dashboard_data(ds, HUMAN, store); assert data.baselines and data.n_reviewed; "
        "print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_baseline_table_of_scores_is_baseline_table_against(shards, decided_store):
    with LabelStore(decided_store) as store:  # a label set reads the store's judge labels when asked
        current = resolve_label_set(shards, HUMAN, store, scope="all")
        scores = {m: np.full(len(shards), np.nan) for m in TRACE_METRICS}
        for i, ex in iter_examples(shards):
            s = trace_scores(current.labels.get(i), ex.n_context_sentences)
            for m in TRACE_METRICS:
                scores[m][i] = np.nan if getattr(s, m) is None else getattr(s, m)
        got = baseline_table_of_scores(shards, scores)
        _same_tables(got, baseline_table_against(shards, current))


@pytest.mark.parametrize("path", ["sample_data", "ragbench", "tests/fixtures", "synthetic"])
def test_families_from_columns_are_those_of_every_example(path, synthetic):
    if path == "ragbench":
        datasets = [load(require_ragbench()).dataset]
    elif path == "synthetic":
        datasets = [synthetic]
    else:
        files = [p for p in sorted((ROOT / path).rglob("*")) if p.suffix in {".jsonl", ".json", ".parquet", ".csv"}]
        datasets = [d for f in files if not (r := load(f)).errors and len(d := r.dataset)]
    assert datasets
    for ds in datasets:
        assert families.dataset_families(ds) == families.families_present(dict(iter_examples(ds)))


def test_histograms_of_a_frame_are_those_of_its_records(shards):
    records = dashboard.dashboard_data(shards, HUMAN, None).records
    as_dicts = [
        {k: _nan_to_none(v) if k in TRACE_METRICS else v for k, v in r.items()} for r in records.to_dict("records")
    ]
    assert dashboard.histogram_counts(records, TRACE_METRICS) == dashboard.histogram_counts(as_dicts, TRACE_METRICS)


def test_a_decision_reuses_the_datas_row_figures_and_changes_the_dashboard(app_env, monkeypatch):
    """The column part is cached per data file, not per label-store version: a decision rescores
    one row (the Dashboard shows it), the data's figures are not computed again."""
    import ragviz.analysis.dashboard.rows as dashboard_rows
    from ragviz.ui.core import results
    from tests.app.test_dashboard import correct_ml
    from tests.apptest_helpers import open_page

    calls = []
    real = dashboard_rows.row_figures
    monkeypatch.setattr(dashboard_rows, "row_figures", lambda ds, progress=None: calls.append(1) or real(ds, progress))
    results._row_figures.clear()
    at = open_page("pages/dashboard.py")
    assert len(calls) == 1 and any("0 with a human decision" in c.value for c in at.caption)
    correct_ml(app_env["db"])
    at.run()
    assert not at.exception
    assert len(calls) == 1 and any("1 with a human decision" in c.value for c in at.caption)
