"""Issue 36's "Done when" on the Dashboard (AppTest, real SQLite store): with 6 and 30 reviewed examples, people
accepting every label the judge gave (a unanimous audit), no interval of zero width and every figure under its
minimum in its "too few" state."""

from __future__ import annotations

import re

import pytest

from ragviz.analysis.audits.samples import draw_design
from ragviz.analysis.estimates.pairing import member_rows
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.ragbench_data import require_ragbench, shard
from tests.sample import SAMPLE_DATA

INTERVAL = re.compile(r"(\d+(?:\.\d+)?)(%?) [–−-] (\d+(?:\.\d+)?)\2")


def _review(db, data, k: int) -> None:
    dataset = load([data]).dataset
    with LabelStore(db) as store:
        sample = draw_design(store, dataset, "uniform", k, "tester", 3)
        for row in member_rows(dataset, sample.members):
            ex = dataset.example(row)
            store.record(ex.uid, "tester", [Change(REVIEW_FIELD, None, REVIEWED)], example=ex)


def _intervals(texts) -> list[tuple[str, str, str]]:
    return [m for t in texts for m in INTERVAL.findall(str(t))]


@pytest.mark.parametrize("k", [6, 30])
def test_dashboard_figures_at_few_reviews(app_env, monkeypatch, k):
    if k >= 10:  # the sample data has 22 examples: 30 reviews come from a RAGBench shard
        require_ragbench()
        data = shard("covidqa")
        monkeypatch.setenv("RAGVIZ_DATA", str(data))
    else:
        data = SAMPLE_DATA
    _review(app_env["db"], data, k)
    at = open_page("pages/dashboard.py")
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any(f"Too few reviewed to correct yet: {100 - k} more needed" in w for w in warnings), warnings
    corrected = next(df.value for df in at.dataframe if "corrected 95% CI" in df.value.columns)
    cis = _intervals([*corrected["corrected 95% CI"], *corrected["people 95% CI"]])
    assert cis and all(low != high for low, _, high in cis), cis
    trust = next(df.value for df in at.dataframe if "Figure" in df.value.columns).set_index("Figure")
    kinds = [c for c in trust.columns if not c.endswith(" 95%")]
    captions = [c.value for c in at.caption if c.value.startswith("95 %:")]
    too_few = [i.value for i in at.info if i.value.startswith("Too few reviewed to say")]
    if k < 10:
        assert too_few == [too_few[0]] and too_few[0].startswith(f"Too few reviewed to say ({k} of 10)")
        assert len(kinds) == len(trust.columns) and not captions  # the figures, no interval, said once
    else:
        assert not too_few

        def said(figure: str) -> list[str]:
            return [trust.loc[figure, f"{kind} 95%"] for kind in kinds]

        shown = _intervals([*said("Cohen's κ"), *said("accuracy"), *captions])
        assert len(shown) == 2 * len(kinds) + len(captions) and len(captions) >= 3
        # precision, recall and F1 carry theirs too: "—" only where the figure itself is undefined
        for figure in ("precision", "recall", "F1"):
            values = [trust.loc[figure, kind] for kind in kinds]
            assert all((v == "—") == (t == "—") for v, t in zip(values, said(figure))), list(zip(values, said(figure)))
            shown += _intervals([t for t in said(figure) if t != "—"])
        assert all(low != high for low, _, high in shown), shown
