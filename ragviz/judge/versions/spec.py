"""What a judge version is: a named, immutable configuration (model, endpoint URL, system prompt, rubric notes,
few-shot examples with the labels shown, temperature, reasoning effort, response format), as JSON for the store.

The shipped prompt is version 1 (:data:`SHIPPED_VERSION`, name ``v1``): it is never stored, every list starts
with it. A version's *prompt version* (what the judge's cache key, runs and label sets record) is the shipped
``ragviz-judge-v1`` for ``v1`` and ``ragviz-judge:NAME:HASH`` for the others, HASH over the exact system message.
No API key is ever part of a version.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ragviz.judge.prompt import PROMPT_VERSION, SYSTEM_PROMPT

__all__ = [
    "FewShot",
    "JudgeVersion",
    "NAME_PATTERN",
    "SHIPPED_NAME",
    "SHIPPED_VERSION",
    "check_name",
    "prompt_version_of",
    "version_from_json",
    "version_to_json",
]


SHIPPED_NAME = "v1"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class FewShot:
    """One example shown in the prompt: its uid, the hash of its text when chosen, the text as the prompt shows
    it (question, keyed documents and response), the people's labels as the judge's answer JSON, their note."""

    uid: str
    content_hash: str
    text: str
    answer_json: str
    note: str = ""


@dataclass(frozen=True)
class JudgeVersion:
    """One judge version. ``model`` / ``base_url`` ``None``: the model and endpoint the run is given."""

    name: str
    system_prompt: str = SYSTEM_PROMPT
    rubric: str = ""
    few_shot: tuple[FewShot, ...] = ()
    model: str | None = None
    base_url: str | None = None
    temperature: float | None = None
    reasoning_effort: str | None = None
    response_format: str = "auto"
    parent: str | None = None
    created_by: str = ""
    created_at: str = ""
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def shot_uids(self) -> tuple[str, ...]:
        return tuple(s.uid for s in self.few_shot)

    @property
    def is_shipped(self) -> bool:
        return self.name == SHIPPED_NAME


SHIPPED_VERSION = JudgeVersion(SHIPPED_NAME, created_by="ragviz")


def check_name(name: str) -> str:
    """*name* when it can name a version (letters, digits, ``. _ -``, at most 64, not ``v1``), else ValueError."""
    if not NAME_PATTERN.match(name or ""):
        raise ValueError(
            f"version name {name!r}: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    if name == SHIPPED_NAME:
        raise ValueError(f"a judge version named {name!r} exists already: it is the shipped prompt")
    return name


def version_to_json(version: JudgeVersion) -> str:
    data = asdict(replace(version, extra={}))
    data.pop("extra")
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def version_from_json(text: str) -> JudgeVersion:
    data = json.loads(text)
    shots = tuple(FewShot(**s) for s in data.pop("few_shot", []))
    known = {f for f in JudgeVersion.__dataclass_fields__ if f not in ("few_shot", "extra")}
    return JudgeVersion(few_shot=shots, **{k: v for k, v in data.items() if k in known})


def prompt_version_of(name: str, system: str) -> str:
    """The prompt version recorded for answers of version *name* whose system message is *system*."""
    if name == SHIPPED_NAME and system == SYSTEM_PROMPT:
        return PROMPT_VERSION
    return f"ragviz-judge:{name}:{hashlib.sha256(system.encode()).hexdigest()[:12]}"
