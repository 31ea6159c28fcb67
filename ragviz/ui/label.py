"""Streamlit helpers for the LLM judge: settings held in session state, the judge cache, a
"re-judge this example" control for the Review page, and result/failure tables.

The API key is a password field whose value lives only in ``st.session_state`` (never written to the
store, logs or exports); when it is empty ``OPENAI_API_KEY`` is used.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import streamlit as st

from ragviz.data.model import Example
from ragviz.judge import JudgeCache, JudgeConfigError, JudgeSettings, judge_example
from ragviz.judge.client import API_KEY_ENV
from ragviz.judge.run import JudgeOutcome
from ragviz.metrics.trace import trace_scores
from ragviz.ui import state

MODEL_KEY = "label.model"
BASE_URL_KEY = "label.base_url"
API_KEY_KEY = "label.api_key"
CONCURRENCY_KEY = "label.concurrency"
TIMEOUT_KEY = "label.timeout"
MODEL_ENV = "RAGVIZ_JUDGE_MODEL"
BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_MODEL = "gpt-4o-mini"


@st.cache_resource(show_spinner=False)
def _judge_cache(path: str) -> JudgeCache:
    return JudgeCache(path)


def judge_cache() -> JudgeCache:
    """The judge tables in the label store's DB file (opened once per process)."""
    return _judge_cache(str(state.store().path))


def init_settings_state() -> None:
    """Defaults for the settings widgets (from env on first use of the session)."""
    st.session_state.setdefault(MODEL_KEY, os.environ.get(MODEL_ENV) or DEFAULT_MODEL)
    st.session_state.setdefault(BASE_URL_KEY, os.environ.get(BASE_URL_ENV) or "")
    st.session_state.setdefault(API_KEY_KEY, "")
    st.session_state.setdefault(CONCURRENCY_KEY, 8)
    st.session_state.setdefault(TIMEOUT_KEY, 120)


def settings_from_state() -> JudgeSettings:
    """Judge settings from the Label page's widgets (session state only)."""
    init_settings_state()
    return JudgeSettings(
        model=str(st.session_state[MODEL_KEY]).strip(),
        base_url=str(st.session_state[BASE_URL_KEY]).strip() or None,
        api_key=st.session_state[API_KEY_KEY] or None,
        concurrency=int(st.session_state[CONCURRENCY_KEY]),
        timeout=float(st.session_state[TIMEOUT_KEY]),
    )


def key_source_note(settings: JudgeSettings) -> str:
    if settings.api_key:
        return "Using the key entered here (kept in this browser session only)."
    if os.environ.get(API_KEY_ENV):
        return f"Using {API_KEY_ENV} from the server's environment."
    if settings.base_url:
        return "No key: fine for local servers that need none."
    return f"No key yet: enter one or set {API_KEY_ENV}."


def format_cost(cost_usd: float | None) -> str:
    return "unknown" if cost_usd is None else f"${cost_usd:,.4f}"


def metric_row(items: Sequence[tuple[str, str]]) -> None:
    """One row of ``st.metric`` cards, ``(label, value)`` each."""
    for column, (label, value) in zip(st.columns(len(items)), items):
        column.metric(label, value)


def outcome_rows(examples: Sequence[Example], outcomes: Sequence[JudgeOutcome | None]) -> list[dict[str, Any]]:
    """One table row per example: status and the TRACe scores of the judge's new labels."""
    rows = []
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
                "error": o.error or "",
            }
        )
    return rows


def show_failures(failures: Sequence[Any], limit: int = 50) -> None:
    """Failures with their raw output, shown as plain text (``st.code`` never interprets HTML)."""
    for f in list(failures)[:limit]:
        with st.expander(f"{f.example_uid}: {f.error[:120]}", icon=":material/error:"):
            st.text(f.error)
            st.caption("Raw model output")
            st.code(
                f.raw_output if f.raw_output is not None else "(no answer: the request itself failed)",
                language=None,
                wrap_lines=True,
            )
    if len(failures) > limit:
        st.caption(f"… and {len(failures) - limit} more failures")


def rejudge_control(example: Example, key: str = "review.rejudge") -> JudgeOutcome | None:
    """A "Re-judge this example" button for the Review page: one fresh call with the Label page's
    settings; the new labels become the base for review. Returns the outcome when clicked."""
    if not st.button(
        "Re-judge this example",
        key=key,
        icon=":material/smart_toy:",
        help="Ask the judge again with the settings of the Label page",
    ):
        return None
    try:
        settings = settings_from_state()
        settings.check()
    except JudgeConfigError as exc:
        st.error(f"Judge settings: {exc}")
        return None
    with st.spinner(f"Asking {settings.model}…"):
        try:
            outcome = judge_example(example, settings, state.store(), cache=judge_cache())
        except JudgeConfigError as exc:
            st.error(f"Judge settings: {exc}")
            return None
    if outcome.ok:
        state.bump_label_version()
        st.success(f"New judge labels from {settings.model} are now the base for review.")
    else:
        st.error("The judge's answer was not usable; nothing was changed.")
        st.text(outcome.error or "")
        st.code(outcome.raw_output or "(no answer)", language=None, wrap_lines=True)
    return outcome
