"""The Judge page's second half: compare versions side by side on the test set, promote one, re-judge with it.
Each call to the judge goes through the judge cache (only missing answers are requested) with the Label page's
estimate, progress and Cancel; admins run them, annotators see the versions, the prompts and the last comparison."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from ragviz.analysis.judge_compare.figures import FIGURES, KINDS, TRACE_METRICS
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.data.keys import clean_key
from ragviz.data.model import Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.judge.run import RunProgress, judge_examples
from ragviz.judge.settings import JudgeSettings
from ragviz.judge.versions import registry
from ragviz.judge.versions.compare import Comparison, TestSet, VersionRun, compare_versions, differing_examples
from ragviz.store.judge_versions import latest_prompt_versions
from ragviz.store.label_store import LabelStore
from ragviz.ui.core import queue_settings, render, state
from ragviz.ui.core.keys import JUDGE_CANCEL, JUDGE_COMPARISON, JUDGE_DONE, JUDGE_PROMOTE, JUDGE_REJUDGE, JUDGE_VERSIONS
from ragviz.ui.label import page as label_ui

__all__ = [
    "MAX_LINKS",
    "compare_section",
    "comparison_tables",
    "kappa_change",
    "promote_section",
    "rejudge_rows",
    "rejudge_section",
]


MAX_LINKS = 20
FIGURE_NAMES = {
    "kappa": "Cohen's κ",
    "precision": "precision",
    "recall": "recall",
    "f1": "F1",
    "tnr": "true-negative rate",
}


def _cell(point: float | None, low: float | None, high: float | None, digits: int = 2) -> str:
    if point is None:
        return "—"
    interval = "" if low is None or high is None else f" [{low:.{digits}f}, {high:.{digits}f}]"
    return f"{point:.{digits}f}{interval}".replace("-", "−")


def comparison_tables(comparison: Comparison) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(agreement: one row per label kind and figure, one column per version; bias: one row per TRACe metric)."""
    runs = comparison.runs
    agreement = [
        {
            "Label kind": kind,
            "Figure": FIGURE_NAMES[name],
            **{
                r.version.name: _cell(
                    r.figures.kinds[kind].point[name], r.figures.kinds[kind].low[name], r.figures.kinds[kind].high[name]
                )
                for r in runs
            },
        }
        for kind in KINDS
        for name in FIGURES
    ]
    bias = [
        {
            "TRACe metric": metric,
            **{
                r.version.name: _cell(
                    r.figures.bias[metric].bias, r.figures.bias[metric].low, r.figures.bias[metric].high, 3
                )
                for r in runs
            },
        }
        for metric in TRACE_METRICS
    ]
    return pd.DataFrame(agreement), pd.DataFrame(bias)


def kappa_change(comparison: Comparison) -> str:
    """One line: Cohen's kappa per label kind from the first version compared to the last."""
    first, last = comparison.runs[0], comparison.runs[-1]

    def k(run: VersionRun, kind: str) -> str:
        value = run.figures.kinds[kind].point["kappa"]
        return "—" if value is None else f"{value:.2f}".replace("-", "−")

    changes = " · ".join(f"{kind} {k(first, kind)} → {k(last, kind)}" for kind in KINDS)
    return f"Cohen's κ from {first.version.name} to {last.version.name}: {changes}"


def _progress() -> Callable[[str, RunProgress], None]:
    bar = st.progress(0.0, text="Comparing…")
    st.button("Cancel", key=JUDGE_CANCEL, icon=":material/stop:")

    def on_progress(name: str, p: RunProgress) -> None:
        bar.progress(
            p.done / max(p.total, 1),
            text=f"{name}: {p.done:,} / {p.total:,} — new {p.n_judged:,}, cached {p.n_cached:,}, failed {p.n_failed:,}",
        )

    return on_progress


def _labels_line(labels: Labels | None) -> str:
    if labels is None:
        return "no answer"
    rel = ", ".join(clean_key(k) for k in labels.relevant_keys) or "none"
    used = ", ".join(clean_key(k) for k in labels.utilized_keys) or "none"
    bad = ", ".join(unsupported_keys(labels)) or "none"
    return f"relevant {rel} · utilized {used} · unsupported {bad}"


def compare_section(
    store: LabelStore, sample_id: int, test_set: TestSet, settings: JudgeSettings | None, can_admin: bool
) -> None:
    """Pick versions, compare them on the test set (admins), show the last comparison side by side."""
    st.subheader("Compare on the test set")
    st.caption(render.md_escape(f"Test set: {test_set.what}. No prompt shows any of them.", None))
    versions = registry.list_versions(store)
    names = [v.name for v in versions]
    if not st.session_state.get(JUDGE_VERSIONS):
        st.session_state[JUDGE_VERSIONS] = list(dict.fromkeys([registry.current_version(store)[0].name, names[-1]]))
    picked = st.multiselect("Versions", names, key=JUDGE_VERSIONS)
    if can_admin and st.button(
        "Compare on the test set", type="primary", key="judge.compare", disabled=settings is None or not picked
    ):
        assert settings is not None
        try:
            comparison = compare_versions(
                [registry.get_version(store, n) for n in picked],
                test_set,
                store,
                settings,
                label_ui.judge_cache(),
                on_progress=_progress(),
            )
        except BadInput as exc:
            st.error(render.md_escape(exc.problem, None))
            return
        st.session_state[JUDGE_COMPARISON] = (sample_id, tuple(picked), comparison)
        st.rerun()
    last = st.session_state.get(JUDGE_COMPARISON)
    if not last or last[0] != sample_id:
        st.caption("No comparison yet in this session." + ("" if can_admin else " An admin runs comparisons."))
        return
    comparison = last[2]
    requests = "; ".join(
        f"{r.version.name}: {r.summary.requests:,} requests, {r.summary.n_cached:,} cached, {r.summary.n_failed:,} failed"
        for r in comparison.runs
    )
    st.caption(
        render.md_escape(
            f"{len(test_set.examples):,} examples · {requests} · 95 % bootstrap intervals (1,000 resamples of the examples)",
            None,
        )
    )
    agreement, bias = comparison_tables(comparison)
    if len(comparison.runs) > 1:
        st.markdown(render.md_escape(kappa_change(comparison), None))
    st.markdown("**Agreement with people** (the positive label: relevant, utilized, supported, supporting, adherent)")
    if comparison.runs and (few := comparison.runs[0].figures.too_few):
        st.caption(f"No intervals: {render.md_escape(few, None)}.")  # md: escaped
    st.dataframe(agreement, hide_index=True, width="stretch", key="judge.agreement", height=38 + 35 * len(agreement))
    st.markdown("**Bias per TRACe metric** (judge mean − people mean)")
    st.dataframe(bias, hide_index=True, width="stretch", key="judge.bias")
    _differing(comparison)


def _differing(comparison: Comparison) -> None:
    differ = differing_examples(comparison)
    st.markdown(f"**Where the versions differ** ({len(differ):,} examples, most differing decisions first)")
    for uid, n in differ[:MAX_LINKS]:
        st.page_link(
            "pages/review.py",
            label=f"{render.md_escape(uid)} — {n} decision(s) differ",
            query_params=queue_settings.review_query(uid),
            icon=":material/arrow_forward:",
        )
        lines = [f"{r.version.name}: {_labels_line(r.labels.get(uid))}" for r in comparison.runs]
        lines.append(f"people: {_labels_line(comparison.test_set.people.get(uid))}")
        st.html(
            '<div class="rv-judge-diff" style="font-size:0.85rem;margin:-0.4rem 0 0.5rem 2rem">'
            + "<br>".join(render.esc(t) for t in lines)
            + "</div>"
        )
    if len(differ) > MAX_LINKS:
        st.caption(f"… and {len(differ) - MAX_LINKS:,} more.")


def promote_section(store: LabelStore, can_admin: bool) -> None:
    st.subheader("Promote")
    if not can_admin:
        st.caption("Admins promote a version to the team's judge.")
        return
    names = [v.name for v in registry.list_versions(store)]
    pick = st.selectbox("Version", names, index=len(names) - 1, key=JUDGE_PROMOTE)
    if st.button("Promote to the team's judge", key="judge.promote"):
        registry.promote(store, str(pick), state.annotator())
        st.session_state[JUDGE_DONE] = f"{pick} is the team's judge now: the Label page and `ragviz label` use it."
        st.rerun()


def rejudge_rows(ds: Dataset, store: LabelStore, prompt_version: str, everything: bool) -> list[int]:
    """Rows to re-judge: all, or those whose judge labels did not come from *prompt_version*."""
    if everything:
        return list(range(len(ds)))
    latest = latest_prompt_versions(store)
    return [i for i, uid in enumerate(ds.uids) if latest.get(uid, None) != prompt_version]


def rejudge_section(
    ds: Dataset, store: LabelStore, settings: JudgeSettings | None, can_admin: bool, team_prompt: Sequence
) -> None:
    """Re-judge with the team's judge: every example or only those labelled by another version; estimate, run, Cancel."""
    version, prompt = team_prompt
    st.subheader(f"Re-judge with {render.md_escape(version.name)}")
    if not can_admin:
        st.caption("Admins re-judge the examples.")
        return
    scope = st.segmented_control(
        "Which examples",
        ["Labelled by another version", "All examples"],
        default="Labelled by another version",
        key=JUDGE_REJUDGE,
    )
    rows = rejudge_rows(ds, store, prompt.version, scope == "All examples")
    if settings is None:  # say why there is no button (the warning above names the setting)
        st.info(f"{len(rows):,} examples to re-judge once the judge settings work: set them on the Label page.")
        st.page_link("pages/label.py", label="Open the Label page", icon=":material/smart_toy:")
        return
    label_ui.estimate_summary(label_ui.run_estimate(rows, settings, label_ui.judge_cache(), store))
    if st.button(f"Re-judge {len(rows):,} examples", key="judge.rejudge", disabled=not rows):
        examples = state.examples_at(rows)
        summary = judge_examples(
            examples,
            settings,
            label_ui.judge_cache(),
            store,
            on_progress=label_ui.run_progress(len(examples)),
            prompt=prompt,
        )
        state.bump_redraw_count()
        st.session_state[JUDGE_DONE] = (
            f"Re-judged with {version.name}: {summary.n_judged:,} judged, {summary.n_cached:,} cached, {summary.n_failed:,} failed"
            + (" (cancelled)" if summary.cancelled else "")
        )
        st.rerun()
