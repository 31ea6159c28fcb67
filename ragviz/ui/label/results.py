"""A judge run's figures on the page: cost and metric cards, one row per example judged, its failures (raw answers
only from the server's configured judge), the session's last run and the recent runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.data.model import Example
from ragviz.judge.cache import JudgeFailure, JudgeRun
from ragviz.judge.endpoint import short_error
from ragviz.judge.run import JudgeOutcome, RunSummary
from ragviz.metrics.trace import trace_scores
from ragviz.ui.core import render

__all__ = ["format_cost", "last_run", "metric_row", "outcome_rows", "recent_runs", "show_failures"]


def format_cost(cost_usd: float | None) -> str:
    return "unknown" if cost_usd is None else f"${cost_usd:,.4f}"


def metric_row(items: Sequence[tuple[str, str]]) -> None:
    """One row of ``st.metric`` cards, ``(label, value)`` each."""
    for column, (label, value) in zip(st.columns(len(items)), items):
        column.metric(label, value)  # md: ours


def outcome_rows(
    examples: Sequence[Example], outcomes: Sequence[JudgeOutcome | None], full: bool = True
) -> list[dict[str, Any]]:
    """One table row per example: status and the TRACe scores of the judge's new labels (the error cut
    short unless *full*)."""
    rows: list[dict[str, Any]] = []
    for ex, o in zip(examples, outcomes):
        if o is None:
            rows.append({"example": ex.uid, "status": "not run", "error": ""})
            continue
        scores = trace_scores(o.labels, ex.n_context_sentences)
        rows.append(
            {
                "example": ex.uid,
                "status": o.status,
                "relevance": scores.relevance,
                "utilization": scores.utilization,
                "completeness": scores.completeness,
                "adherence": scores.adherence,
                "calls": o.calls,
                "error": render.table_text(o.error or "", 300) if full else short_error(o.error),
            }
        )
    return rows


def show_failures(failures: Sequence[Any], limit: int = 50, full: bool = True) -> None:
    """Failures with their raw output, shown as plain text (``st.code`` never interprets HTML). With
    *full* False (a server other than the configured judge) only a short error, never the raw answer."""
    for f in list(failures)[:limit]:
        with st.expander(
            f"{render.md_escape(f.example_uid, 80)}: {render.md_escape(f.error, 120)}", icon=":material/error:"
        ):
            if not full:
                st.text(short_error(f.error))
                continue
            st.html(render.long_text_html(f.error, 2_000))  # show all, up to 100k characters
            st.caption("Raw model output")
            st.code(
                f.raw_output if f.raw_output is not None else "(no answer: the request itself failed)",
                language=None,
                wrap_lines=True,
            )
    if len(failures) > limit:
        st.caption(f"… and {len(failures) - limit} more failures")


def last_run(
    summary: RunSummary, examples: Sequence[Example], failures: Sequence[JudgeFailure], full: bool = True
) -> None:
    """The session's last run: its figures, one row per example it judged, its failures (with their raw
    answers only when *full*: the run called the server's configured judge)."""
    st.subheader("Last run")
    metric_row(
        [
            ("Judged", f"{summary.n_judged:,}"),
            ("Cached", f"{summary.n_cached:,}"),
            ("Failed", f"{summary.n_failed:,}"),
            ("Requests", f"{summary.requests:,}"),
            ("Cost (est.)", format_cost(summary.cost_usd)),
        ]
    )
    st.caption(
        f"{summary.prompt_tokens:,} prompt + {summary.completion_tokens:,} completion tokens (as reported by the server); "
        f"{summary.wall_seconds:.1f} s; response format used: {render.md_escape(summary.format_mode)}"
        + ("; cancelled before the end" if summary.cancelled else "")
    )
    st.dataframe(pd.DataFrame(outcome_rows(examples, summary.outcomes, full)), hide_index=True, key="label.results")
    if failures:
        st.subheader(f"Failures ({len(failures)})")
        st.caption("Never applied: the examples keep their previous labels. The raw answer is kept for inspection.")
        show_failures(failures, full=full)


def recent_runs(runs: Sequence[JudgeRun]) -> None:
    with st.expander("Recent runs"):
        if runs:
            st.dataframe(pd.DataFrame([r.__dict__ for r in runs]), hide_index=True, key="label.runs")
        else:
            st.caption("No judge runs yet.")
