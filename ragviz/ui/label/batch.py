"""The Label page's Batch panel (admins): live and batch cost side by side, submit the selection as a Batch API
job, every batch of the store with its status and counts, refresh, collect, cancel.

Everything is read from the ledger in the label store (:mod:`ragviz.judge.batch.ledger`), never from the
session: a restarted server or another replica sees the same batches and picks up where the last one was.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import streamlit as st

from ragviz.data.dataset import Dataset
from ragviz.judge import JudgeCache, JudgeConfigError, JudgeSettings
from ragviz.judge.batch import collect as collecting
from ragviz.judge.batch import ledger
from ragviz.judge.batch.cost import BatchCost, batch_run_cost
from ragviz.judge.batch.examples import prompt_examples
from ragviz.judge.batch.remote import BatchServiceError
from ragviz.judge.batch.submit import BatchPlan, batch_format, iter_todo, send_recorded_files, write_batch
from ragviz.judge.cost import price_source
from ragviz.judge.prompt import JudgePrompt
from ragviz.store.label_store import LabelStore
from ragviz.ui.core import render
from ragviz.ui.core.keys import BATCH_ESTIMATE, BATCH_REPORT, BATCH_SENT
from ragviz.ui.core.team_judge import team_judge

__all__ = ["batch_dir", "batch_panel", "batch_rows", "cost_columns"]


def batch_dir(store: LabelStore) -> Path:
    """Where the app writes request files: a ``batches`` folder beside the SQLite store, else ~/.ragviz/batches."""
    return store.path.parent / "batches" if store.path is not None else Path.home() / ".ragviz" / "batches"


def _usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _estimate(
    dataset: Dataset, rows: Sequence[int], settings: JudgeSettings, cache: JudgeCache, prompt: JudgePrompt
) -> tuple[BatchPlan, BatchCost]:
    """The plan and prices for *rows*, kept per (settings, rows, cache and ledger size): a rerun that changed
    none of them builds no example (at 100,000 rows building them takes most of a minute)."""
    pending = ledger.request_count(cache)
    key = (
        settings.model,
        settings.endpoint,
        prompt.version,
        len(rows),
        hash(tuple(rows)),
        cache.count_results(),
        pending,
    )
    memo = st.session_state.get(BATCH_ESTIMATE)
    if memo is not None and memo[0] == key:
        return memo[1], memo[2]
    plan = BatchPlan()
    estimate = batch_run_cost(iter_todo(prompt_examples(dataset, rows), settings, cache, plan, prompt=prompt), settings)
    st.session_state[BATCH_ESTIMATE] = (key, plan, estimate)
    return plan, estimate


def cost_columns(
    dataset: Dataset, rows: Sequence[int], settings: JudgeSettings, cache: JudgeCache, prompt: JudgePrompt
) -> BatchPlan:
    """Live and batch cost of the examples a batch under *prompt* would send, side by side; returns the plan."""
    plan, estimate = _estimate(dataset, rows, settings, cache, prompt)
    left, mid, right = st.columns(3)
    left.metric("Batch requests", f"{plan.n_todo:,}", help="not cached and not waiting in a batch already sent")
    mid.metric("Live cost (est.)", _usd(estimate.live_usd), help=f"{price_source()} list prices")  # md: ours
    right.metric(
        "Batch cost (est.)", _usd(estimate.batch_usd), help=estimate.batch_rule
    )  # md: ours (a rule of ragviz.judge.batch.cost)
    if plan.n_waiting:
        st.caption(f"{plan.n_waiting:,} of them already wait in a batch sent before; they are not sent again.")
    return plan


def batch_rows(cache: JudgeCache) -> pd.DataFrame:
    """One row per batch in the store: status, server counts, what is stored, created, expires."""
    counts = ledger.request_counts(cache)
    rows = []
    for record in ledger.batch_records(cache):
        states = counts.get(record.file_id, {})
        rows.append(
            {
                "batch": record.batch_id,
                "status": record.status,
                # a batch still validating reports 0 requests: the ledger knows how many it holds
                "done": f"{record.counts.get('completed', 0)}/{record.counts.get('total') or sum(states.values())}",
                "failed": record.counts.get("failed", 0),
                "labels stored": states.get(ledger.APPLIED, 0),
                "created": record.created_at,
                "expires": record.expires_at or "",
                "collected": record.collected_at or "not yet",
            }
        )
    return pd.DataFrame(rows)


def _report(report: collecting.CollectReport) -> None:
    st.success(
        f"{report.applied:,} labels stored, {len(report.failures):,} failed, {len(report.collected)} batches collected,"
        f" {len(report.waiting)} still running."
    )
    if report.problems:
        st.error("Refused (nothing of these batches applied):")
        st.dataframe(pd.DataFrame({"problem": [str(p) for p in report.problems]}), hide_index=True)
    if report.failures:
        st.dataframe(
            pd.DataFrame([{"example": f.example_uid, "where": f.where, "error": f.error} for f in report.failures]),
            hide_index=True,
        )


def batch_panel(
    dataset: Dataset,
    rows: Sequence[int],
    checked_settings: Callable[[], JudgeSettings],
    settings: JudgeSettings,
    cache: JudgeCache,
    store: LabelStore,
    paths: Sequence[str],
) -> bool:
    """The Batch panel; returns True when it stored labels (the caller bumps the label version)."""
    version, prompt = team_judge()
    plan = cost_columns(dataset, rows, settings, cache, prompt)
    if (sent := st.session_state.pop(BATCH_SENT, None)) is not None:
        st.success(f"{sent[0]:,} requests sent in {sent[1]} batches; collect them here once they are done.")  # md: ours
        for oversized in sent[2]:
            st.warning(render.md_escape(oversized))
    changed = False
    submit, refresh, collect = st.columns(3)
    st.caption(render.md_escape(f"Batch requests carry the team's judge, version {version.name}."))
    try:
        if submit.button("Submit as batch", key="label.batch.submit", disabled=not plan.n_todo, type="primary"):
            live = checked_settings()
            written = write_batch(
                iter_todo(prompt_examples(dataset, rows), live, cache, BatchPlan(), prompt=prompt),
                live,
                cache,
                batch_dir(store),
                format_mode=batch_format(live, cache),
                sources=[os.path.abspath(p) for p in paths],
                prompt=prompt,
            )
            created, _ = send_recorded_files(live, cache)
            st.session_state[BATCH_SENT] = (written.n_requests, len(created), [str(o) for o in written.oversized])
            st.rerun()  # the costs above no longer count what was just sent
        if refresh.button("Refresh status", key="label.batch.refresh"):
            collecting.refresh(checked_settings(), cache)
        if collect.button("Collect finished", key="label.batch.collect"):
            live = checked_settings()
            send_recorded_files(live, cache)
            st.session_state[BATCH_REPORT] = collecting.collect(live, cache, store, collecting.SourceExamples())
            changed = True
        table = batch_rows(cache)
        if table.empty:
            st.caption("No batches in this store yet.")
        else:
            st.dataframe(table, hide_index=True, key="label.batch.table")
            running = [b for b, s in zip(table["batch"], table["status"]) if s not in ledger.TERMINAL]
            if running:
                which, go = st.columns([3, 1], vertical_alignment="bottom")
                chosen = which.selectbox("Batch", running, key="label.batch.which")
                if go.button("Cancel batch", key="label.batch.cancel"):
                    collecting.cancel(checked_settings(), cache, chosen)
                    st.rerun()
    except JudgeConfigError as exc:
        st.error(f"Judge settings: {render.md_escape(exc)}")
    except (BatchServiceError, FileNotFoundError) as exc:
        st.error(render.md_escape(str(exc)))
    report = st.session_state.get(BATCH_REPORT)
    if report is not None:
        _report(report)
    return changed
