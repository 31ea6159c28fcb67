"""Checking a judge answer against the example and turning it into :class:`~ragviz.data.model.Labels`.

An answer is accepted only when it is a JSON object with every RAGBench label field, every key names a
real sentence of the example (after stripping a trailing dot), and every response sentence has exactly
one support entry. Anything else raises :class:`JudgeOutputError` listing every problem, which the
runner feeds back to the model.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ragviz.data.keys import clean_key
from ragviz.data.model import Example, Labels, Provenance
from ragviz.data.ragbench import (
    OVERALL_EXPLANATION,
    OVERALL_SUPPORTED,
    RELEVANCE_EXPLANATION,
    RELEVANT,
    SUPPORT,
    UTILIZED,
    labels_from_row,
)
from ragviz.errors import BadInput

__all__ = ["JudgeOutputError", "extract_json", "parse_judge_output", "validate_answer"]


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class JudgeOutputError(BadInput, ValueError):
    """The judge's answer is unusable; ``problems`` says why, one line each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


def extract_json(text: str) -> Any:
    """Parse the JSON object in *text*: the whole text, a fenced ```json block, or the outermost
    ``{...}`` (servers without JSON mode wrap the object in prose)."""
    text = (text or "").strip()
    candidates = [text]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    error: json.JSONDecodeError | None = None
    too_deep = False
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = error or exc
        except RecursionError:  # brackets nested past Python's recursion limit
            too_deep = True
    if not text:
        raise JudgeOutputError(["the answer is empty"])
    if too_deep:
        raise JudgeOutputError(["the answer is not valid JSON (nested too deep to read)"])
    assert error is not None  # *text* itself was a candidate, and it did not parse
    raise JudgeOutputError([f"the answer is not valid JSON ({error.msg} at line {error.lineno} column {error.colno})"])


def _key_list(answer: dict, field: str, valid: set[str], what: str, problems: list[str]) -> list[str]:
    value = answer.get(field)
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        problems.append(f"{field}: must be a list of key strings")
        return []
    return _clean_keys(value, valid, field, what, problems)


def _clean_keys(keys: list[str], valid: set[str], where: str, what: str, problems: list[str]) -> list[str]:
    cleaned: list[str] = []
    for raw in keys:
        key = clean_key(raw)
        if key not in valid:
            problems.append(f"{where}: {raw!r} names no {what}")
        elif key not in cleaned:
            cleaned.append(key)
    return cleaned


def _string(answer: dict, field: str, problems: list[str]) -> str:
    value = answer.get(field)
    if not isinstance(value, str):
        problems.append(f"{field}: must be a string")
        return ""
    return value


def validate_answer(answer: Any, example: Example) -> dict[str, Any]:
    """The RAGBench label fields of a decoded *answer*, keys cleaned and de-duplicated.

    Raises :class:`JudgeOutputError` with every problem found.
    """
    if not isinstance(answer, dict):
        raise JudgeOutputError([f"the answer must be a JSON object, got {type(answer).__name__}"])
    problems: list[str] = []
    context_keys = set(example.context_keys())
    response_keys = example.response_keys()
    row: dict[str, Any] = {
        RELEVANCE_EXPLANATION: _string(answer, RELEVANCE_EXPLANATION, problems),
        RELEVANT: _key_list(answer, RELEVANT, context_keys, "context sentence", problems),
        OVERALL_EXPLANATION: _string(answer, OVERALL_EXPLANATION, problems),
        UTILIZED: _key_list(answer, UTILIZED, context_keys, "context sentence", problems),
    }
    overall = answer.get(OVERALL_SUPPORTED)
    if not isinstance(overall, bool):
        problems.append(f"{OVERALL_SUPPORTED}: must be true or false")
    row[OVERALL_SUPPORTED] = overall if isinstance(overall, bool) else None

    entries = answer.get(SUPPORT)
    by_key: dict[str, dict[str, Any]] = {}
    if not isinstance(entries, list):
        problems.append(f"{SUPPORT}: must be a list with one entry per response sentence")
        entries = []
    for n, entry in enumerate(entries):
        where = f"{SUPPORT}[{n}]"
        if not isinstance(entry, dict):
            problems.append(f"{where}: must be an object")
            continue
        raw_key = entry.get("response_sentence_key")
        key = clean_key(raw_key) if isinstance(raw_key, str) else None
        if key not in response_keys:
            problems.append(f"{where}.response_sentence_key: {raw_key!r} names no response sentence")
            continue
        if key in by_key:
            problems.append(f"{where}.response_sentence_key: response sentence {key!r} appears twice")
            continue
        supporting = entry.get("supporting_sentence_keys")
        if not isinstance(supporting, list) or not all(isinstance(k, str) for k in supporting):
            problems.append(f"{where}.supporting_sentence_keys: must be a list of key strings")
            supporting = []
        supported = entry.get("fully_supported")
        if not isinstance(supported, bool):
            problems.append(f"{where}.fully_supported: must be true or false")
        explanation = entry.get("explanation")
        if not isinstance(explanation, str):
            problems.append(f"{where}.explanation: must be a string")
        by_key[key] = {
            "response_sentence_key": key,
            "explanation": explanation if isinstance(explanation, str) else "",
            "supporting_sentence_keys": _clean_keys(
                supporting, context_keys, f"{where}.supporting_sentence_keys", "context sentence", problems
            ),
            "fully_supported": supported if isinstance(supported, bool) else None,
        }
    missing = [k for k in response_keys if k not in by_key]
    if missing:
        problems.append(f"{SUPPORT}: no entry for response sentence(s) {', '.join(repr(k) for k in missing)}")
    if problems:
        raise JudgeOutputError(problems)
    row[SUPPORT] = [by_key[k] for k in response_keys]
    return row


def parse_judge_output(text: str, example: Example, provenance: Provenance) -> Labels:
    """Labels from the judge's raw answer *text*; raises :class:`JudgeOutputError` when unusable."""
    row = validate_answer(extract_json(text), example)
    labels = labels_from_row(row, provenance=provenance)
    assert labels is not None  # validate_answer always fills the label fields
    return labels
