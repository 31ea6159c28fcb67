"""The LLM judge: prompt, answer validation, async client with retries, cache, runner.

Public entry points: :func:`judge_examples` / :func:`judge_examples_async` for a batch,
:func:`judge_example` for one example (the Review page's "re-judge"), :func:`run_cost`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragviz.judge.cache import JudgeCache
    from ragviz.judge.client import JudgeConfigError, JudgeSettings
    from ragviz.judge.cost import RunCost, run_cost
    from ragviz.judge.prompt import PROMPT_VERSION, content_hash
    from ragviz.judge.run import (
        JudgeOutcome,
        RunProgress,
        RunSummary,
        judge_example,
        judge_examples,
        judge_examples_async,
    )

# Each name from its module on first use: importing ragviz.judge.settings (the Review page's re-judge help) does not
# load the openai client, a second and a half of a page's first run (issue 38).
_FROM = {
    "JudgeCache": "cache",
    "JudgeConfigError": "client",
    "JudgeSettings": "client",
    "RunCost": "cost",
    "run_cost": "cost",
    "PROMPT_VERSION": "prompt",
    "content_hash": "prompt",
    **dict.fromkeys(
        ("JudgeOutcome", "RunProgress", "RunSummary", "judge_example", "judge_examples", "judge_examples_async"), "run"
    ),
}


def __getattr__(name: str) -> Any:
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"ragviz.judge.{_FROM[name]}"), name)


__all__ = [
    "JudgeCache",
    "JudgeConfigError",
    "JudgeOutcome",
    "JudgeSettings",
    "PROMPT_VERSION",
    "RunCost",
    "RunProgress",
    "RunSummary",
    "content_hash",
    "run_cost",
    "judge_example",
    "judge_examples",
    "judge_examples_async",
]
