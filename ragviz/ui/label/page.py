"""Streamlit helpers for the LLM judge: settings held in session state, the judge cache, a
"re-judge this example" control for the Review page, and the Label page's pieces (the settings box,
the choice of examples, the selection and estimate remembered across reruns, the run's progress; a run's
results, failures and recent runs are :mod:`ragviz.ui.label.results`).

The API key is a password field whose value lives only in ``st.session_state`` (never written to the
store, logs or exports); when it is empty ``OPENAI_API_KEY`` is used, but only for the server's configured
endpoint (:mod:`ragviz.judge.endpoint`): another Base URL needs a key typed here and, when the app is
served, a place on ``RAGVIZ_JUDGE_URLS``; its answers are shown only as labels or a short error.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import streamlit as st

import ragviz.judge  # run_cost and select_indices are looked up on their modules at call time
import ragviz.judge.selection
from ragviz.data.dataset import Dataset
from ragviz.data.model import Example
from ragviz.judge import JudgeCache, JudgeConfigError, JudgeSettings, judge_example
from ragviz.judge.client import DEFAULT_TIMEOUT, NO_KEY_PLACEHOLDER
from ragviz.judge.cost import RunCost, price_source
from ragviz.judge.endpoint import BASE_URL_ENV, EndpointAccess, endpoint_access, short_error
from ragviz.judge.run import JudgeOutcome, RunProgress
from ragviz.judge.selection import ALL, FILTERED, FIRST_K, UNLABELED
from ragviz.judge.versions import registry
from ragviz.store.label_store import LabelStore
from ragviz.ui.core import render, state
from ragviz.ui.core.keys import ESTIMATE_MEMO, SELECTION_MEMO
from ragviz.ui.core.keys import LABEL_CANCEL as CANCEL
from ragviz.ui.core.served import served
from ragviz.ui.core.team_judge import team_judge
from ragviz.ui.label import options as judge_options
from ragviz.ui.label.options import API_KEY_KEY, BASE_URL_KEY, CONCURRENCY_KEY, KEEP, MODEL_KEY, TIMEOUT_KEY
from ragviz.ui.label.results import format_cost, metric_row

__all__ = [
    "API_KEY_KEY",
    "BASE_URL_KEY",
    "CANCEL",
    "CONCURRENCY_KEY",
    "DEFAULT_MODEL",
    "ESTIMATE_MEMO",
    "MODEL_ENV",
    "MODEL_KEY",
    "SELECTION_LABELS",
    "SELECTION_MEMO",
    "TIMEOUT_KEY",
    "cancelled_notice",
    "checked_settings",
    "estimate_summary",
    "init_settings_state",
    "judge_access",
    "judge_cache",
    "own_endpoint",
    "rejudge",
    "run_button",
    "run_estimate",
    "run_progress",
    "selected_rows",
    "selection_picker",
    "settings_box",
    "settings_from_state",
]


MODEL_ENV, DEFAULT_MODEL = judge_options.MODEL_ENV, judge_options.DEFAULT_MODEL

SELECTION_LABELS = {
    ALL: "All examples",
    UNLABELED: "Unlabeled only",
    FILTERED: "Current Review filter",
    FIRST_K: "First K",
}


@st.cache_resource(show_spinner=False)
def _judge_cache(location: str) -> JudgeCache:
    return JudgeCache(state.store().reopen_database())


def judge_cache() -> JudgeCache:
    """The judge tables in the label store's database (opened once per process, own connection)."""
    return _judge_cache(state.store().location)


def init_settings_state() -> None:
    """Defaults for the settings widgets (from env on first use of the session)."""
    st.session_state.setdefault(MODEL_KEY, os.environ.get(MODEL_ENV) or DEFAULT_MODEL)
    st.session_state.setdefault(BASE_URL_KEY, os.environ.get(BASE_URL_ENV) or "")
    st.session_state.setdefault(API_KEY_KEY, "")
    st.session_state.setdefault(CONCURRENCY_KEY, 8)
    st.session_state.setdefault(TIMEOUT_KEY, int(DEFAULT_TIMEOUT))
    judge_options.init_state()


def judge_access() -> EndpointAccess | JudgeConfigError:
    """The endpoint and key the typed Base URL and key allow, or why they do not work."""
    init_settings_state()
    try:
        return endpoint_access(st.session_state[BASE_URL_KEY], st.session_state[API_KEY_KEY], served=served())
    except JudgeConfigError as exc:
        return exc


def settings_from_state() -> JudgeSettings:
    """Judge settings from the Label page's widgets (session state only). The key in them is never the
    server's for a Base URL other than the server's own (when :func:`judge_access` refuses, a
    placeholder: check it before calling)."""
    access = judge_access()
    base_url: str | None
    api_key: str | None
    azure = False
    if isinstance(access, JudgeConfigError):
        base_url, api_key = str(st.session_state[BASE_URL_KEY]).strip() or None, NO_KEY_PLACEHOLDER
    else:
        base_url, api_key, azure = access.base_url, access.api_key, access.azure
    typed = JudgeSettings(
        model=str(st.session_state[MODEL_KEY]).strip(),
        base_url=None if azure else base_url,
        azure_endpoint=base_url if azure else None,  # the Model field names the deployment
        api_key=api_key,
        concurrency=int(st.session_state[CONCURRENCY_KEY]),
        timeout=float(st.session_state[TIMEOUT_KEY]),
        **judge_options.from_state(),
    )
    return registry.settings_for(team_judge()[0], typed)


def checked_settings() -> JudgeSettings:
    """The settings, checked (model, concurrency, the Base URL and key rule): raises :class:`JudgeConfigError`."""
    access = judge_access()
    if isinstance(access, JudgeConfigError):
        raise access
    settings = settings_from_state()
    settings.check()
    settings.resolved_api_key()
    return settings


def own_endpoint() -> bool:
    """Whether the settings call the server's configured judge (whose answers are shown in full)."""
    access = judge_access()
    return not isinstance(access, JudgeConfigError) and access.own


def rejudge(example: Example) -> JudgeOutcome | None:
    """One fresh judge call on *example* with the Label page's settings; the new labels become the
    base for review. The Review page draws the button without importing this module (and the openai
    client under it) and calls this only on a click."""
    try:
        settings = checked_settings()
    except JudgeConfigError as exc:
        st.error(f"Judge settings: {render.md_escape(exc)}")
        return None
    with st.spinner(f"Asking {render.md_escape(settings.model, 80)}…"):
        try:
            outcome = judge_example(example, settings, state.store(), cache=judge_cache(), prompt=team_judge()[1])
        except JudgeConfigError as exc:
            st.error(f"Judge settings: {render.md_escape(exc)}")
            return None
    if outcome.ok:
        state.bump_redraw_count()
        st.success(f"New judge labels from {render.md_escape(settings.model, 80)} are now the base for review.")
    else:
        st.error("The judge's answer was not usable; nothing was changed.")
        if not own_endpoint():  # a server other than the configured judge: a short error only
            st.text(short_error(outcome.error))
            return outcome
        st.text(outcome.error or "")
        st.code(outcome.raw_output or "(no answer)", language=None, wrap_lines=True)
    return outcome


# -- the Label page ----------------------------------------------------------------------------------------


def settings_box() -> JudgeSettings:
    """The judge's settings (model, base URL, API key, concurrent calls) and where the key comes from."""
    with st.container(border=True):
        left, right = st.columns(2)
        left.text_input(
            "Model", key=MODEL_KEY, persist_state=KEEP, help="Any chat model of an OpenAI-compatible server"
        )
        right.text_input(
            "Base URL",
            key=BASE_URL_KEY,
            persist_state=KEEP,
            placeholder="https://api.openai.com/v1 (default)",
            help="Leave empty for the OpenAI API; e.g. http://localhost:8000/v1 for vLLM",
        )
        left.text_input(
            "API key",
            key=API_KEY_KEY,
            persist_state=KEEP,
            type="password",
            help="Kept in this browser session only: never saved to the database, logs or exports",
        )
        right.number_input(
            "Concurrent calls", min_value=1, max_value=64, step=1, key=CONCURRENCY_KEY, persist_state=KEEP
        )
        left.number_input(
            "Timeout per call (s)",
            min_value=1,
            max_value=600,
            step=5,
            key=TIMEOUT_KEY,
            persist_state=KEEP,
            help="A call that has not answered completely by then is retried (up to 6 attempts), then fails",
        )
        judge_options.request_options(left, right)
        settings = settings_from_state()
        access = judge_access()
        note = judge_options.key_source_note(access)  # Markdown with its dynamic parts escaped
        version, prompt = team_judge()
        fixed = f"; it fixes the model `{render.md_escape(version.model, 80)}`" if version.model else ""
        st.caption(  # md: ours (a prompt version is letters, digits, '.:_-')
            f"{note} Judge version **{render.md_escape(version.name)}**{fixed} (prompt version `{prompt.version}`)."
        )
        if isinstance(access, JudgeConfigError):
            st.warning(render.md_escape(access))
    return settings


def selection_picker(n_examples: int) -> tuple[str, int]:
    """Which examples to judge (one of :data:`SELECTION_LABELS`) and K for "First K" (else 0)."""
    selection = (
        st.segmented_control(
            "Which examples",
            list(SELECTION_LABELS),
            default=UNLABELED,
            key="label.selection",
            format_func=lambda selection: SELECTION_LABELS[selection],
        )
        or UNLABELED
    )
    first_k = (
        st.number_input(
            "K",
            min_value=1,
            max_value=max(1, n_examples),
            value=min(10, n_examples),
            key="label.k",
            width=render.NUMBER_WIDTH,
        )
        if selection == FIRST_K
        else 0
    )
    return selection, int(first_k)


def selected_rows(
    ds: Dataset, store: LabelStore, selection: str, first_k: int, filtered: list[int] | None
) -> list[int]:
    """The selection's row indices, recomputed only when the data, the store's labels, the
    selection widgets or the Review filter's result (*filtered*) change (walking every row is O(N))."""
    key = (state.current_paths(), store.location, store.data_version(), selection, first_k)
    memo = st.session_state.get(SELECTION_MEMO)
    if memo and memo[0] == key and memo[1] is filtered:
        return memo[2]
    rows = ragviz.judge.selection.select_indices(
        ds, selection, judged_uids=store.judge.judged_uids(), filtered=filtered, first_k=first_k
    )
    st.session_state[SELECTION_MEMO] = (key, filtered, rows)  # holding *filtered* keeps its identity unique
    return rows


def run_estimate(rows: list[int], settings: JudgeSettings, cache: JudgeCache, store: LabelStore) -> RunCost:
    """The estimate for *rows*, recomputed only when the selection, the model/endpoint or the judge
    cache (a new run, new judge labels) change: it hashes every selected example."""
    last_run = next(iter(cache.runs(1)), None)
    key = (
        settings.model,
        settings.endpoint,
        team_judge()[1].version,
        store.data_version(),
        state.redraw_count(),
        last_run and (last_run.id, last_run.status, last_run.finished_at),
    )
    memo = st.session_state.get(ESTIMATE_MEMO)
    if memo and memo[0] == key and memo[1] is rows:
        return memo[2]
    estimate = ragviz.judge.run_cost(state.examples_at(rows), settings, cache, team_judge()[1])
    st.session_state[ESTIMATE_MEMO] = (key, rows, estimate)
    return estimate


def estimate_summary(estimate: RunCost) -> None:
    """The run's size, calls, tokens and cost before it starts, and how they are estimated."""
    metric_row(
        [
            ("Examples", f"{estimate.n_examples:,}"),
            ("Already cached", f"{estimate.n_cached:,}"),
            ("Calls needed", f"{estimate.calls:,}"),
            ("Tokens (est.)", f"{estimate.prompt_tokens + estimate.completion_tokens:,}"),
            ("Cost (est.)", format_cost(estimate.cost_usd)),
        ]
    )
    st.caption(
        f"Estimate: prompt tokens = characters / 4 ({estimate.prompt_tokens:,}); completion tokens guessed from the "
        f"number of response sentences ({estimate.completion_tokens:,}); cost from {price_source()} list prices "
        "when the model is listed, else unknown. Fix-up retries after an invalid answer add calls."  # md: ours
        + (" Cost unknown: this model is not in the price table." if estimate.cost_usd is None else "")
    )


def cancelled_notice() -> None:
    """A warning on the run after the person clicked Cancel."""
    if st.session_state.get(CANCEL):
        st.warning("Run cancelled. Every answer accepted before the cancel is kept; run again to judge the rest.")


def run_button(n_selected: int) -> bool:
    """The Run button: off, with the reason in plain words above it, until the judge can run."""
    access = judge_access()
    blocker = str(access) if isinstance(access, JudgeConfigError) else ragviz.judge.endpoint.missing_key(access)
    if blocker or not n_selected:
        st.info(render.md_escape(blocker or "No example is selected.", None))
    return st.button("Run the judge", type="primary", key="label.run", disabled=bool(blocker) or not n_selected)


def run_progress(n_examples: int) -> Callable[[RunProgress], None]:
    """A progress bar and a Cancel button for a run of *n_examples*; returns the callback that moves
    the bar. Clicking Cancel reruns the page, which stops the run at its next progress update (at most
    :data:`ragviz.judge.run.TICK` seconds away: the calls under way are cancelled)."""
    bar = st.progress(0.0, text=f"Judging {n_examples:,} examples…")
    st.button("Cancel", key=CANCEL, icon=":material/stop:")

    def on_progress(p: RunProgress) -> None:
        text = f"{p.done:,} / {p.total:,} — new {p.n_judged:,}, cached {p.n_cached:,}, failed {p.n_failed:,}"
        if p.retry_wait > 0:
            text += f" — the server asked to wait: retrying in {p.retry_wait:.0f} s"
        bar.progress(p.done / max(p.total, 1), text=text)

    return on_progress
