"""The judge prompt: keyed sentences in, RAGBench label fields out.

The prompt is versioned (:data:`PROMPT_VERSION`); the version is part of the cache key and is stored
with every label set the judge produces, so changing the wording here means bumping the version.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ragviz.data.model import Example

__all__ = [
    "FIX_PROMPT",
    "JUDGE_JSON_SCHEMA",
    "JudgePrompt",
    "PROMPT_VERSION",
    "RESPONSE_FORMAT_JSON_OBJECT",
    "RESPONSE_FORMAT_JSON_SCHEMA",
    "SHIPPED_PROMPT",
    "SYSTEM_PROMPT",
    "TokenCount",
    "build_messages",
    "content_hash",
    "count_tokens",
    "render_user_prompt",
]


PROMPT_VERSION = "ragviz-judge-v1"

SYSTEM_PROMPT = """\
You are an expert annotator of retrieval-augmented generation (RAG) answers. You label, sentence by
sentence, how a response uses the retrieved documents, following the RAGBench annotation scheme.

Every document sentence has a key: document number followed by letters (0a, 0b, ..., 1a, ...).
Every response sentence has a key of letters alone (a, b, c, ...).

Produce exactly these fields:
- relevance_explanation: a short explanation of which document sentences matter for the question.
- all_relevant_sentence_keys: keys of the document sentences that contain information relevant to
  answering the question (whether or not the response used them).
- overall_supported_explanation: a short explanation of whether the response as a whole is supported
  by the documents.
- overall_supported: true when every claim of the response is supported by the documents.
- sentence_support_information: one entry for EVERY response sentence, in order, each with
  response_sentence_key, explanation, supporting_sentence_keys (the document sentence keys that
  support it; empty when none) and fully_supported (true only when the documents fully support the
  sentence; a sentence that makes no factual claim counts as supported).
- all_utilized_sentence_keys: keys of the document sentences the response actually used.

Rules: use only keys that appear in the prompt, written exactly as shown without a trailing dot.
Judge only against the documents, not your own knowledge. Answer with one JSON object and nothing else.
"""

FIX_PROMPT = """\
Your previous answer could not be used:
{problems}
Answer again with one corrected JSON object that follows all the rules."""


@dataclass(frozen=True)
class JudgePrompt:
    """The system message one judge version sends, and the prompt version its answers are cached and
    stored under (a judge version's few-shot examples and rubric notes are part of *system*)."""

    system: str
    version: str


SHIPPED_PROMPT = JudgePrompt(SYSTEM_PROMPT, PROMPT_VERSION)


def _one_line(text: str) -> str:
    r"""*text* with every whitespace run replaced by one space, trimmed (the same as
    ``re.sub(r"\s+", " ", text).strip()``: both use ``str.isspace``, this is ~3x faster)."""
    return " ".join(text.split())


def render_user_prompt(example: Example) -> str:
    """The user message: question, keyed document sentences, keyed response sentences.

    Sentences are flattened to one line each so a key always starts a line (``0a. ...``).
    """
    lines = ["Question:", _one_line(example.question), "", "<documents>"]
    for doc_index, sentences in enumerate(example.document_sentences):
        lines.append(f"Document {doc_index}:")
        lines.extend(f"{s.key}. {_one_line(s.text)}" for s in sentences)
        lines.append("")
    lines.append("</documents>")
    lines.append("")
    lines.append("<response>")
    lines.extend(f"{s.key}. {_one_line(s.text)}" for s in example.response_sentences)
    lines.append("</response>")
    return "\n".join(lines)


def build_messages(
    example: Example, corrections: Iterable[tuple[str, str]] = (), prompt: JudgePrompt = SHIPPED_PROMPT
) -> list[dict[str, str]]:
    """Chat messages for *example* under *prompt* (the shipped one unless a judge version is given);
    *corrections* are ``(previous raw answer, problems)`` pairs fed back after an invalid answer."""
    messages = [
        {"role": "system", "content": prompt.system},
        {"role": "user", "content": render_user_prompt(example)},
    ]
    for raw_answer, problems in corrections:
        messages.append({"role": "assistant", "content": raw_answer})
        messages.append({"role": "user", "content": FIX_PROMPT.format(problems=problems)})
    return messages


JUDGE_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "relevance_explanation",
        "all_relevant_sentence_keys",
        "overall_supported_explanation",
        "overall_supported",
        "sentence_support_information",
        "all_utilized_sentence_keys",
    ],
    "properties": {
        "relevance_explanation": {"type": "string"},
        "all_relevant_sentence_keys": {"type": "array", "items": {"type": "string"}},
        "overall_supported_explanation": {"type": "string"},
        "overall_supported": {"type": "boolean"},
        "sentence_support_information": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["response_sentence_key", "explanation", "supporting_sentence_keys", "fully_supported"],
                "properties": {
                    "response_sentence_key": {"type": "string"},
                    "explanation": {"type": "string"},
                    "supporting_sentence_keys": {"type": "array", "items": {"type": "string"}},
                    "fully_supported": {"type": "boolean"},
                },
            },
        },
        "all_utilized_sentence_keys": {"type": "array", "items": {"type": "string"}},
    },
}

RESPONSE_FORMAT_JSON_SCHEMA = {
    "type": "json_schema",
    "json_schema": {"name": "ragbench_labels", "strict": True, "schema": JUDGE_JSON_SCHEMA},
}
RESPONSE_FORMAT_JSON_OBJECT = {"type": "json_object"}


def content_hash(example: Example) -> str:
    """sha256 over the question, the keyed document sentences and the keyed response sentences
    (stable JSON), i.e. over exactly what the prompt shows."""
    payload = {
        "question": example.question,
        "documents": [[[s.key, s.text] for s in doc] for doc in example.document_sentences],
        "response": [[s.key, s.text] for s in example.response_sentences],
    }
    data = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


# A rough output size: the explanations plus one support entry per response sentence.
_OUTPUT_TOKENS_BASE = 120
_OUTPUT_TOKENS_PER_RESPONSE_SENTENCE = 60


@dataclass(frozen=True)
class TokenCount:
    """Expected size of one judge call, in tokens estimated as characters / 4."""

    prompt_tokens: int
    completion_tokens: int


def count_tokens(example: Example, prompt: JudgePrompt = SHIPPED_PROMPT) -> TokenCount:
    """chars/4 of the prompt; the completion is guessed from the number of response sentences."""
    chars = sum(len(m["content"]) for m in build_messages(example, prompt=prompt))
    return TokenCount(
        prompt_tokens=chars // 4 + 1,
        completion_tokens=_OUTPUT_TOKENS_BASE + _OUTPUT_TOKENS_PER_RESPONSE_SENTENCE * len(example.response_sentences),
    )
