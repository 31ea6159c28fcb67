"""Two systems compared in the app (issue 39): the Dashboard's Compare-systems view (B − A with its interval per
metric and subset, the verdict in words, the planner) and the Explainer's plain words.

Nothing here computes: the figures are :func:`ragviz.analysis.compare_systems.sample.compare_sample`'s (the report's
and, over the same sample, ``ragviz estimate --compare --db``'s). Every text from data or a person goes through
:func:`ragviz.ui.core.render.md_escape`.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

from ragviz.analysis.compare_systems.difference import CompareReport
from ragviz.analysis.compare_systems.pairs import CompareError
from ragviz.analysis.compare_systems.sample import compare_sample, compare_sample_of, two_systems
from ragviz.analysis.compare_systems.words import headline, plan_questions_text, verdicts
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.store.label_store import LabelStore
from ragviz.ui.audit.truth import truth_words
from ragviz.ui.core import chart_specs, charts, render, state

__all__ = [
    "compare_plain_words",
    "compare_systems_panel",
    "compare_table",
    "difference_chart",
    "difference_records",
    "loaded_systems",
]


@st.cache_data(show_spinner="Comparing the systems…", max_entries=8)
def _compare(
    paths: tuple[str, ...],
    db: str,
    version: tuple[int, int],
    against: LabelSelection,
    sample_key: tuple[int, int] | None,
    systems: tuple[str, str] | None,
) -> tuple[CompareReport, str]:
    from ragviz.analysis.compare_systems.words import plan_questions

    sample = state.store().audits.get_sample(sample_key[0]) if sample_key is not None else None
    dataset = state.load_result(paths).dataset
    pairs, report = compare_sample(dataset, state.store(), sample, against, systems)
    return report, plan_questions_text(plan_questions(pairs.pairs, "adherence", 0.03))


def loaded_systems() -> list[str]:
    """The systems (``generation_model_name`` values) of the loaded data when there are two or more, else ``[]``."""
    return two_systems(state.load_result(state.current_paths()).dataset)


def _points(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f}"


def _ci(low: float | None, high: float | None) -> str:
    return "no interval" if low is None or high is None else f"{100 * low:+.1f} to {100 * high:+.1f}"


def compare_table(report: CompareReport) -> pd.DataFrame:
    """B − A in points per subset and metric: judge only, people only, corrected with its 95 % interval, the
    verdict (below the minimum audit: how many more audited questions it needs)."""
    return pd.DataFrame(
        [
            {
                "subset": r["group"],
                "metric": r["metric"],
                "questions": r["n_pairs"],
                "audited": r["n_audited"],
                "judge only": _points(r["judge_diff"]),
                "people only": _points(r["people_diff"]),
                "corrected": _points(r["ppi_diff"]),
                "corrected 95% CI": _ci(r["ppi_low"], r["ppi_high"]),
                "verdict": f"too few: {r['more_needed']:,} more needed" if r["more_needed"] else r["verdict"],
            }
            for r in report.rows()
        ]
    )


def difference_records(report: CompareReport) -> list[dict[str, Any]]:
    """Chart rows: per subset and metric, the judge-only and the corrected B − A in points (the corrected one with
    its interval)."""
    out = []
    for r in report.rows():
        for who, value, low, high in (
            (charts.ESTIMATORS[0], r["judge_diff"], None, None),
            (charts.ESTIMATORS[2], r["ppi_diff"], r["ppi_low"], r["ppi_high"]),
        ):
            if value is not None:
                out.append(
                    {
                        "metric": r["metric"],
                        "subset": r["group"],
                        "estimate": who,
                        "value": 100 * value,
                        "low": None if low is None else 100 * low,
                        "high": None if high is None else 100 * high,
                    }
                )
    return out


def difference_chart(records: list[dict[str, Any]], columns: int = 4) -> alt.Chart:
    """Per metric, B − A per subset in points: the corrected difference with its 95 % interval and the judge's
    alone, beside a line at 0 (no difference)."""
    df = pd.DataFrame(records, columns=["metric", "subset", "estimate", "value", "low", "high"])
    # the legend names only what is drawn: below the minimum audit no corrected difference is, and its entry misled
    drawn = set(df["estimate"])
    shown = [(e, c) for e, c in zip(charts.ESTIMATORS, charts.ESTIMATOR_COLORS) if e != charts.ESTIMATORS[1]]
    shown = [(e, c) for e, c in shown if e in drawn] or shown
    color = alt.Color(
        "estimate:N",
        scale=alt.Scale(domain=[e for e, _ in shown], range=[c for _, c in shown]),
        legend=alt.Legend(orient="bottom", title=None),
    )
    subsets = list(dict.fromkeys(df["subset"]))
    base = alt.Chart(df).encode(
        y=alt.Y("subset:N", sort=subsets, title=None, axis=alt.Axis(labelLimit=160)),
        color=color,
        tooltip=[
            "metric:N",
            "subset:N",
            "estimate:N",
            alt.Tooltip("value:Q", format="+.1f", title="B − A (points)"),
            alt.Tooltip("low:Q", format="+.1f", title="95% low"),
            alt.Tooltip("high:Q", format="+.1f", title="95% high"),
        ],
    )
    # the rules are drawn for the eye only (aria=False): the points carry the figures, the table beside says them in words
    bars = base.mark_rule(strokeWidth=3, aria=False).encode(
        x=alt.X("low:Q", title="B − A (points)", scale=alt.Scale(padding=charts.POINT_PAD + 2)), x2="high:Q"
    )
    points = base.mark_point(filled=True, size=70, opacity=1).encode(
        x="value:Q", shape=alt.Shape("estimate:N", legend=None, scale=alt.Scale(range=["diamond", "circle"]))
    )
    zero = alt.Chart(df).mark_rule(strokeDash=[4, 3], color="#888", aria=False).encode(x=alt.datum(0))
    order = list(dict.fromkeys(df["metric"]))
    return (
        (zero + bars + points)
        .properties(width=165, height=alt.Step(22))
        .facet(facet=alt.Facet("metric:N", title=None, sort=order), columns=columns)
    )


def _comparison(
    store: LabelStore, against: LabelSelection, systems: tuple[str, str] | None
) -> tuple[CompareReport, str, Any]:
    dataset = state.load_result(state.current_paths()).dataset
    sample = compare_sample_of(store, dataset)
    key = (sample.id, sample.size) if sample is not None else None
    report, plan = _compare(state.current_paths(), store.location, store.data_version(), against, key, systems)
    return report, plan, sample


def _pick(systems: list[str], present: bool) -> tuple[str, str] | None:
    if len(systems) == 2:
        return (systems[0], systems[1])
    if present:
        return None
    left, right = st.columns(2)
    a = str(left.selectbox("System A", systems, index=0, key="compare_systems.a"))
    b = str(right.selectbox("System B", [s for s in systems if s != a], index=0, key="compare_systems.b"))
    return (a, b)


def compare_systems_panel(store: LabelStore, against: LabelSelection, present: bool) -> None:
    """The Dashboard's Compare-systems view: shown only when the loaded data holds two systems or more."""
    systems = loaded_systems()
    if not systems:
        return
    st.header("Compare systems")
    chosen = _pick(systems, present)
    try:
        report, plan, sample = _comparison(store, against, chosen)
    except CompareError as exc:
        st.info(render.md_escape(str(exc), limit=None))
        return
    where = sample.label(with_who=not present) if sample is not None else "no audit sample yet"
    st.caption(
        render.md_escape(
            truth_words(
                f"{report.b} − {report.a}, paired by {report.pair_by} · {where} · {against}'s labels · corrected = "
                "the judge on every question, its bias removed by the questions whose two answers people reviewed "
                f"(PPI++, {report.interval} intervals) · differences in points, higher is better",
                against,
            ),
            limit=None,
        )
    )
    for text in verdicts(report):
        st.markdown(render.md_escape(truth_words(text, against), limit=None))
    spec = chart_specs.chart_spec(difference_chart, difference_records(report))
    chart_specs.show_spec(spec, "compare-systems", "compare_systems.chart", downloads=False, fill=True, per_row=2)
    st.table(compare_table(report).set_index("subset"))  # every row as text, no scrolling
    for note in report.notes():
        st.caption(render.md_escape(truth_words(note, against), limit=None))
    st.caption(render.md_escape(plan, limit=None))
    if not present and (sample is None or sample.design != "paired"):
        st.caption(
            "Draw a paired audit (questions drawn, both answers reviewed): `ragviz audit draw DATA --db DB --size N "
            "--design paired`."
        )


def compare_plain_words(store: LabelStore) -> None:
    """The Explainer's words for stakeholders: which system is better on what, by how much, how sure."""
    systems = loaded_systems()
    if not systems:
        return
    with st.container(border=True):
        st.markdown("**Two systems compared** · the same questions, what people would say")
        if len(systems) > 2:  # the CLI's "name the two to compare (--compare A B)" is nothing a person can do here
            st.caption(
                f"{len(systems)} systems answer the loaded questions: pick the two to compare on the Dashboard "
                "(Compare systems)."
            )  # md: ours
            st.page_link("pages/dashboard.py", label="Open the Dashboard", icon=":material/monitoring:")
            return
        chosen = (systems[0], systems[1])
        try:
            report, _, _ = _comparison(store, HUMAN, chosen)
        except CompareError as exc:
            st.caption(render.md_escape(str(exc), limit=None))
            return
        st.markdown(render.md_escape(headline(report, with_verdict=False), limit=None))
        for text in verdicts(report):
            st.markdown(render.md_escape(text, limit=None))
