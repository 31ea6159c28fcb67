"""The LLM judge: prompt, answer validation, async client with retries, cache, runner.

Public entry points: :func:`judge_examples` / :func:`judge_examples_async` for a batch,
:func:`judge_example` for one example (the Review page's "re-judge"), :func:`run_cost`.
"""

from ragviz.judge.cache import JudgeCache
from ragviz.judge.client import JudgeConfigError, JudgeSettings
from ragviz.judge.cost import RunCost, run_cost
from ragviz.judge.prompt import PROMPT_VERSION, content_hash
from ragviz.judge.run import JudgeOutcome, RunProgress, RunSummary, judge_example, judge_examples, judge_examples_async

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
