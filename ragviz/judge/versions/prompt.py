"""A judge version's prompt: the system message with its rubric notes and few-shot examples, pure functions.

Each few-shot example is shown as the judge would see it (question, keyed documents, keyed response), then the
people's labels in the judge's answer format and, where they wrote one, their note. The examples of the test set
can never reach a prompt: :func:`version_prompt` takes the test set (the uids a comparison measures on, and every
audit sample's members) and refuses a version whose few-shot examples lie in it, naming the example.
Tokens are counted as the Label page counts them (characters / 4); ``tiktoken`` fetches its tables from the
network at run time, so it is not used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from ragviz.data.errors import BadInput
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.judge.prompt import JudgePrompt, build_messages, content_hash, count_tokens, render_user_prompt
from ragviz.judge.versions.spec import FewShot, JudgeVersion, prompt_version_of

__all__ = [
    "CONTEXT_TOKENS",
    "DEFAULT_CONTEXT_TOKENS",
    "answer_json",
    "check_fits",
    "check_shots_outside",
    "check_shots_unchanged",
    "context_tokens",
    "few_shot_of",
    "people_note",
    "prompt_tokens",
    "system_message",
    "version_prompt",
]


# Context windows in tokens of the models the cost table knows (a dated snapshot counts as its model).
CONTEXT_TOKENS: dict[str, int] = {
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576,
    "gpt-4-turbo": 128_000,
    "gpt-3.5-turbo": 16_385,
    "o1": 200_000,
    "o3": 200_000,
    "o3-mini": 200_000,
    "o4-mini": 200_000,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
}
DEFAULT_CONTEXT_TOKENS = 128_000  # a model not in the table: the common size today, said so where used
_SNAPSHOT = re.compile(r"^(.+?)-(\d{4}-\d{2}-\d{2}|\d{4}|latest|preview)$")


def context_tokens(model: str | None) -> tuple[int, bool]:
    """(the context window of *model* in tokens, whether the table knows it).

    >>> context_tokens("gpt-4o-mini-2024-07-18"), context_tokens("llama3")
    ((128000, True), (128000, False))
    """
    name = (model or "").strip().lower().split("/")[-1]
    m = _SNAPSHOT.match(name)
    base = m.group(1) if m else name
    if base in CONTEXT_TOKENS:
        return CONTEXT_TOKENS[base], True
    return DEFAULT_CONTEXT_TOKENS, False


def answer_json(labels: Labels, example: Example) -> str:
    """*labels* in the judge's answer format (:data:`ragviz.judge.prompt.JUDGE_JSON_SCHEMA`), one line."""
    unsupported = set(unsupported_keys(labels))
    support = []
    for key in example.response_keys():
        s = labels.support_for(key)
        support.append(
            {
                "response_sentence_key": key,
                "explanation": s.explanation if s is not None else "",
                "supporting_sentence_keys": list(s.supporting_keys) if s is not None else [],
                "fully_supported": key not in unsupported,
            }
        )
    answer: dict[str, Any] = {
        "relevance_explanation": labels.relevance_explanation,
        "all_relevant_sentence_keys": list(labels.relevant_keys),
        "overall_supported_explanation": labels.overall_supported_explanation,
        "overall_supported": not unsupported if labels.overall_supported is None else bool(labels.overall_supported),
        "sentence_support_information": support,
        "all_utilized_sentence_keys": list(labels.utilized_keys),
    }
    return json.dumps(answer, ensure_ascii=False)


def people_note(people: Labels, judge: Labels | None) -> str:
    """What people wrote themselves: their explanations that differ from the judge's, one line each."""
    notes = []
    if people.relevance_explanation and people.relevance_explanation != (judge.relevance_explanation if judge else ""):
        notes.append(f"relevance: {people.relevance_explanation}")
    for s in people.support:
        before = judge.support_for(s.key) if judge is not None else None
        if s.explanation and s.explanation != (before.explanation if before is not None else ""):
            notes.append(f"response sentence {s.key}: {s.explanation}")
    return "\n".join(" ".join(n.split()) for n in notes)


def few_shot_of(example: Example, people: Labels, judge: Labels | None) -> FewShot:
    """*example* as a few-shot example showing *people*'s labels (and their note where they wrote one)."""
    return FewShot(
        example.uid,
        content_hash(example),
        render_user_prompt(example),
        answer_json(people, example),
        people_note(people, judge),
    )


def system_message(version: JudgeVersion) -> str:
    """The exact system message *version* sends: its system prompt, its rubric notes, its few-shot examples."""
    parts = [version.system_prompt.rstrip("\n")]
    if version.rubric.strip():
        parts.append(
            "Rubric notes from the people who check your labels (they take precedence):\n" + version.rubric.strip()
        )
    if version.few_shot:
        shots = ["Worked examples labelled by people. Their labels are correct; label new examples the same way."]
        for n, shot in enumerate(version.few_shot, start=1):
            block = [f"## Worked example {n}", shot.text, "People's labels:", shot.answer_json]
            if shot.note:
                block.append("People's note:\n" + shot.note)
            shots.append("\n".join(block))
        parts.append("\n\n".join(shots))
    return "\n\n".join(parts) + "\n"


def check_shots_outside(version: JudgeVersion, test_set: Collection[str], what: str) -> None:
    """BadInput naming the first few-shot example of *version* that lies in *test_set* (described by *what*)."""
    for uid in version.shot_uids:
        if uid in test_set:
            raise BadInput(
                f"judge version {version.name!r} shows example {uid} as a few-shot example, but it is in {what}: "
                "a prompt may never see the examples it is measured on",
                field="few-shot",
            )


def check_shots_unchanged(version: JudgeVersion, examples: dict[str, Example]) -> None:
    """BadInput naming a few-shot example whose text (as loaded now) differs from when it was chosen."""
    for shot in version.few_shot:
        example = examples.get(shot.uid)
        if example is not None and content_hash(example) != shot.content_hash:
            raise BadInput(
                f"few-shot example {shot.uid} of judge version {version.name!r} changed since it was chosen "
                "(its question, documents or response differ): create a new version with it chosen again",
                field="few-shot",
            )


def version_prompt(version: JudgeVersion, test_set: Collection[str], what: str = "the test set") -> JudgePrompt:
    """The prompt *version* sends, refused (BadInput) when one of its few-shot examples is in *test_set*."""
    check_shots_outside(version, test_set, what)
    system = system_message(version)
    return JudgePrompt(system, prompt_version_of(version.name, system))


def prompt_tokens(prompt: JudgePrompt, example: Example) -> int:
    """Tokens of the whole request for *example* under *prompt*, as the Label page counts them."""
    return count_tokens(example, prompt).prompt_tokens


def check_fits(version: JudgeVersion, prompt: JudgePrompt, examples: Sequence[Example], model: str | None) -> int:
    """The largest request's tokens (prompt + expected answer) over *examples*; BadInput when it exceeds the
    model's context window, naming the example."""
    window, known = context_tokens(model)
    largest, where = 0, ""
    for example in examples or ():
        t = count_tokens(example, prompt)
        if t.prompt_tokens + t.completion_tokens > largest:
            largest, where = t.prompt_tokens + t.completion_tokens, example.uid
    if not examples:
        largest = sum(len(m["content"]) for m in _empty_messages(prompt)) // 4 + 1
    if largest > window:
        size = f"{window:,}-token context" + ("" if known else " (taken for a model ragviz does not know)")
        raise BadInput(
            f"judge version {version.name!r}: the request for {where or 'any example'} is about {largest:,} tokens "
            f"(characters / 4), more than {model or 'the model'}'s {size}: show fewer or shorter few-shot examples",
            field="prompt",
        )
    return largest


def _empty_messages(prompt: JudgePrompt) -> list[dict[str, str]]:
    empty = Example("", "", "", (), (), "", ())
    return build_messages(empty, prompt=prompt)
