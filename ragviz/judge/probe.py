"""Which response format an endpoint supports, found by asking it once and remembered.

``--response-format auto`` (the default) sends one small request per format, best first: a JSON-schema
answer (``json_schema``), then JSON mode (``json_object``); the first whose request is accepted
(HTTP 2xx) and whose answer is a JSON object is used, else plain text whose JSON is cut out of the
prose (``text``). A 400/422 to a probe means that format is not supported: the probe is otherwise the
smallest valid request, so no error wording is read. The result is remembered per endpoint and model in
the judge cache's ``judge_endpoint_formats`` table, so later runs ask nothing (``--force`` probes again).
A probe that fails for another reason (no key, server down) decides nothing and is not remembered: the
run goes on with ``json_schema`` and reports the real error per example.
"""

from __future__ import annotations

import json
from typing import Any

from ragviz.judge.cache import JudgeCache
from ragviz.judge.client import AUTO, FORMAT_MODES, ChatCaller, JudgeRequestError

__all__ = ["PROBE_MESSAGES", "PROBE_SCHEMA", "UNSUPPORTED", "probe_format", "resolve_format"]


PROBE_MESSAGES = [
    {"role": "system", "content": "Answer with a JSON object only."},
    {"role": "user", "content": 'Reply with exactly this JSON object: {"ok": true}'},
]
PROBE_SCHEMA: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "ragviz_probe",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"],
            "additionalProperties": False,
        },
    },
}
UNSUPPORTED = (400, 422)  # what a server answers to a request field it does not take


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's recursion limit: not an object here
        return False


async def probe_format(caller: ChatCaller) -> str | None:
    """The best format the endpoint of *caller* honours, or ``None`` when the probe could not tell
    (the server failed for a reason other than the format)."""
    for mode in FORMAT_MODES[:-1]:
        try:
            completion = await caller.complete(PROBE_MESSAGES, mode=mode)
        except JudgeRequestError as exc:
            if exc.status in UNSUPPORTED:
                continue
            return None
        if _is_json_object(completion.text):
            return mode
    return FORMAT_MODES[-1]


async def resolve_format(caller: ChatCaller, cache: JudgeCache, *, fresh: bool = False) -> str:
    """Set ``caller.format_mode`` for settings with ``response_format="auto"``: the remembered format of
    the endpoint and model (unless *fresh*), else a probe's (remembered when it decided); returns it.
    A fixed format in the settings is returned as it is."""
    settings = caller.settings
    if settings.response_format != AUTO:
        return caller.format_mode
    known = None if fresh else cache.endpoint_format(settings.endpoint, settings.model)
    if known is None:
        known = await probe_format(caller)
        if known is not None:
            cache.remember_endpoint_format(settings.endpoint, settings.model, known)
    caller.format_mode = known or FORMAT_MODES[0]
    return caller.format_mode
