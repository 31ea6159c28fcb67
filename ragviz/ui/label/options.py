"""The Label page's request options (temperature, reasoning effort, response format) and the note on
where the judge's key comes from; :mod:`ragviz.ui.label.page` lays them out in its settings box."""

from __future__ import annotations

import os
from typing import Any, Final

import streamlit as st

from ragviz.judge.endpoint import EndpointAccess, server_endpoint
from ragviz.judge.settings import (
    API_KEY_ENV,
    AZURE_KEY_ENV,
    NO_KEY_PLACEHOLDER,
    REASONING_EFFORTS,
    RESPONSE_FORMATS,
    JudgeConfigError,
)
from ragviz.ui.core import render
from ragviz.ui.core.keys import (
    API_KEY_KEY,
    BASE_URL_KEY,
    CONCURRENCY_KEY,
    CONFIDENCE_FROM_KEY,
    FORMAT_KEY,
    MODEL_KEY,
    REASONING_KEY,
    SAMPLE_MODE_KEY,
    SAMPLES_KEY,
    TEMPERATURE_KEY,
    TIMEOUT_KEY,
)

__all__ = [
    "API_KEY_KEY",
    "BASE_URL_KEY",
    "CONCURRENCY_KEY",
    "CONFIDENCE_FROM_KEY",
    "CONFIDENCE_LABELS",
    "DEFAULT_MODEL",
    "FORMAT_KEY",
    "KEEP",
    "MODEL_ENV",
    "MODEL_KEY",
    "NOT_SENT",
    "REASONING_KEY",
    "SAMPLES_KEY",
    "SAMPLE_MODE_KEY",
    "SAMPLE_MODE_LABELS",
    "confidence_from_state",
    "TEMPERATURE_KEY",
    "TIMEOUT_KEY",
    "from_state",
    "init_state",
    "key_source_note",
    "rejudge_help",
    "request_options",
    "sample_mode_from_state",
    "sampled_totals",
    "samples_from_state",
    "samples_note",
]


MODEL_ENV = "RAGVIZ_JUDGE_MODEL"
DEFAULT_MODEL = "gpt-4o-mini"
NOT_SENT = "not sent"  # the reasoning-effort choice that sends none
#: anywhere), so the Review page's re-judge still has them after a page change (Streamlit otherwise
#: forgets a widget's value on the first run that does not draw it).
KEEP: Final = "session"
SAMPLE_MODE_LABELS = {"n": "one request per example (n)", "separate": "one request per sample"}
CONFIDENCE_LABELS = {"samples": "the samples", "logprobs": "token probabilities (logprobs)"}


def rejudge_help(markdown: bool = True) -> str:
    """What "Re-judge this example" uses, in words for its help: Markdown with the dynamic parts escaped, or plain
    text (*markdown* off: a button's ``title``)."""
    shown = render.md_escape if markdown else _plain
    model = str(st.session_state.get(MODEL_KEY) or os.environ.get(MODEL_ENV) or DEFAULT_MODEL)
    base_url = str(st.session_state.get(BASE_URL_KEY) or "").strip()
    where = f"at {shown(base_url, 120)}" if base_url else f"at the server's judge ({shown(server_endpoint())})"
    key = "the key typed there" if st.session_state.get(API_KEY_KEY) else "no key typed there"
    return f"Ask the judge again with the settings of the Label page: {shown(model, 80)} {where}, {key}."


def _plain(text: object, limit: int | None = render.MD_SHOWN) -> str:
    """*text* on one line, cut to *limit* characters with "…" as :func:`ragviz.ui.core.render.md_escape` cuts it."""
    s = " ".join(str(text).split())
    return s[: limit - 1] + "…" if limit is not None and len(s) > limit else s


def init_state() -> None:
    st.session_state.setdefault(TEMPERATURE_KEY, None)
    st.session_state.setdefault(REASONING_KEY, NOT_SENT)
    st.session_state.setdefault(FORMAT_KEY, RESPONSE_FORMATS[0])
    st.session_state.setdefault(SAMPLES_KEY, 1)
    st.session_state.setdefault(SAMPLE_MODE_KEY, "n")
    st.session_state.setdefault(CONFIDENCE_FROM_KEY, "samples")


def samples_note(samples: int, sample_mode: str = "n", confidence: str = "samples") -> str | None:
    """What the confidence chosen adds to the estimate above (``None`` for none)."""
    if confidence == "logprobs":
        fallback = f"; where the server sends none, {samples} samples per example are asked" if samples > 1 else ""
        return (
            "Confidence from token probabilities: each kept answer is asked with logprobs (one request per example, "
            "no samples; a cached answer without a confidence is asked again)" + fallback + "."
        )
    if samples <= 1:
        return None
    how = (
        f"asked as ONE request per example with n={samples - 1} (the prompt paid once; one request per sample where "
        "the server ignores n)"
        if sample_mode == "n"
        else "one request each"
    )
    return (
        f"Samples per example: {samples}. The estimate above is the kept answers; {samples - 1} more per example "
        f"follow at a temperature above 0 (each cached), {how}."
    )


def sampled_totals(requests: int, prompt_tokens: int, completion_tokens: int, cost: str) -> str:
    """The whole run's figures when samples were asked besides the kept answers (the figures above are theirs)."""
    return (
        f"With the samples: {requests:,} requests, {prompt_tokens:,} prompt + {completion_tokens:,} completion "
        f"tokens, estimated cost {cost}."
    )


def sample_mode_from_state() -> str:
    """How samples 2..N are asked (``ragviz label --sample-mode``)."""
    return str(st.session_state.get(SAMPLE_MODE_KEY) or "n")


def confidence_from_state() -> str:
    """Where the judge's confidence comes from (``ragviz label --confidence``)."""
    return str(st.session_state.get(CONFIDENCE_FROM_KEY) or "samples")


def samples_from_state() -> int:
    """Answers to ask per example (``ragviz label --samples``)."""
    return int(st.session_state.get(SAMPLES_KEY) or 1)


def from_state() -> dict[str, Any]:
    """The options as :class:`~ragviz.judge.settings.JudgeSettings` fields."""
    temperature = st.session_state[TEMPERATURE_KEY]
    return {
        "temperature": None if temperature is None else float(temperature),
        "reasoning_effort": None if st.session_state[REASONING_KEY] == NOT_SENT else st.session_state[REASONING_KEY],
        "response_format": str(st.session_state[FORMAT_KEY]),
    }


def request_options(left: Any, right: Any) -> None:
    """The request's widgets, in the settings box's two columns."""
    right.number_input(
        "Temperature",
        min_value=0.0,
        max_value=2.0,
        step=0.1,
        key=TEMPERATURE_KEY,
        persist_state=KEEP,
        placeholder="default",
        help="Empty: 0 for chat models, none sent to reasoning models (o1, o3, o4-mini, gpt-5)",
    )
    left.selectbox(
        "Reasoning effort",
        [NOT_SENT, *REASONING_EFFORTS],
        key=REASONING_KEY,
        persist_state=KEEP,
        help="For reasoning models only",
    )
    right.selectbox(
        "Response format",
        RESPONSE_FORMATS,
        key=FORMAT_KEY,
        persist_state=KEEP,
        help="auto: ask the server once which of json_schema (structured output), json_object (JSON mode) "
        "or text it honours, and remember it for this server and model",
    )
    left.number_input(
        "Samples per example",
        min_value=1,
        max_value=20,
        step=1,
        key=SAMPLES_KEY,
        persist_state=KEEP,
        help="More than 1: the judge is asked that many times (the kept answer, then more at the temperature set "
        "above 0, else at 1; each cached) and its confidence is stored: how many samples agree with each label "
        "(a faint mark on Review, the filter 'judge unsure') and per metric, which the audit's active and "
        "Neyman draws can use",
    )
    right.selectbox(
        "Samples asked as",
        list(SAMPLE_MODE_LABELS),
        format_func=SAMPLE_MODE_LABELS.__getitem__,
        key=SAMPLE_MODE_KEY,
        persist_state=KEEP,
        help="One request per example asks samples 2..N together (n = N-1): the prompt's tokens are paid once. "
        "A server that ignores or refuses n gets one request per sample, said once. Both cache each sample the "
        "same way, so either reuses the other's answers",
    )
    left.selectbox(
        "Judge's confidence from",
        list(CONFIDENCE_LABELS),
        format_func=CONFIDENCE_LABELS.__getitem__,
        key=CONFIDENCE_FROM_KEY,
        persist_state=KEEP,
        help="The samples (above), or the kept answer's token probabilities: it is asked with logprobs and each "
        "label gets the probability of the token carrying its verdict (a listed key: that it was written; a key "
        "left out: that the list was closed there), one request per example. A server that sends no logprobs: "
        "no confidence, or the samples when more than 1 is set",
    )


def key_source_note(access: EndpointAccess | JudgeConfigError) -> str:
    """Where the key comes from, as Markdown (dynamic parts escaped)."""
    own = render.md_escape(server_endpoint())
    rule = f"The server's key is only ever sent to its configured judge ({own}); another Base URL needs your own key."
    if isinstance(access, JudgeConfigError):
        return rule
    if not access.own:
        using = "Using the key entered here." if access.api_key != NO_KEY_PLACEHOLDER else "No key sent."
        return f"{using} {rule} Answers of this server are shown only as labels or a short error."
    if st.session_state.get(API_KEY_KEY):
        return f"Using the key entered here (kept in this browser session only). {rule}"
    key_env = AZURE_KEY_ENV if access.azure else API_KEY_ENV
    if os.environ.get(key_env):
        return f"Using {key_env} from the server's environment. {rule}"
    return f"No key yet. {rule}"
