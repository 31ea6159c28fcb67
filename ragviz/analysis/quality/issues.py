"""Label-quality report and mechanical normalization of judge labels.

A judge's key lists are not always clean (RAGBench test splits carry all of these); each kind of flaw is an
:class:`IssueKind`. :func:`label_issues` lists them for one example as warnings (the row still loads) and
:func:`ragviz.analysis.quality.scan.scan_dataset` counts them over a dataset on its columns.

:func:`normalize` fixes only what is mechanical (trailing dots, duplicates, keys that name no
sentence, non-key words) and returns labels that the store can reproduce exactly from
``diff_labels(labels, normalize(labels, example))``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from datetime import datetime, timezone
from enum import Enum
from functools import lru_cache
from typing import Any

from ragviz.data import ragbench as rb
from ragviz.data.keys import clean_key as _clean_key
from ragviz.data.keys import is_response_key, parse_context_key
from ragviz.data.labels import apply_changes, diff_labels
from ragviz.data.model import Example, Labels, Provenance, SentenceSupport
from ragviz.data.problems import Problem

__all__ = [
    "ISSUE_DESCRIPTIONS",
    "ISSUE_KINDS",
    "Issue",
    "IssueKind",
    "MECHANICAL_KINDS",
    "clean_key",
    "find_issues",
    "issue_rows",
    "label_issues",
    "normalize",
]


class IssueKind(str, Enum):
    """Kinds of label-quality issue (the value is the stable name used in reports and filters): keys with a
    trailing dot (``0b.``), keys that name no sentence (``7c`` when document 7 has no sentence c), words that are
    not keys at all (``general``, ``supported_without_sentence``), the same key twice, utilized sentences that are
    not marked relevant, per-sentence support that disagrees with the stored unsupported list, and response
    sentences without any support entry."""

    TRAILING_DOT = "trailing_dot"
    UNKNOWN_KEY = "unknown_key"
    NON_KEY = "non_key"
    DUPLICATE_KEY = "duplicate_key"
    UTILIZED_NOT_RELEVANT = "utilized_not_relevant"
    SUPPORT_MISMATCH = "support_mismatch"
    MISSING_SUPPORT = "missing_support"


ISSUE_KINDS: tuple[str, ...] = tuple(k.value for k in IssueKind)

ISSUE_DESCRIPTIONS: dict[str, str] = {
    IssueKind.TRAILING_DOT: "key with a trailing dot (0b.)",
    IssueKind.UNKNOWN_KEY: "key that names no sentence",
    IssueKind.NON_KEY: "word that is not a sentence key (general)",
    IssueKind.DUPLICATE_KEY: "key listed twice",
    IssueKind.UTILIZED_NOT_RELEVANT: "utilized sentence not marked relevant",
    IssueKind.SUPPORT_MISMATCH: "sentence support disagrees with the unsupported list",
    IssueKind.MISSING_SUPPORT: "response sentence without support information",
}

# Issues normalize() removes (the others need a person's judgement).
MECHANICAL_KINDS = frozenset(
    {IssueKind.TRAILING_DOT, IssueKind.UNKNOWN_KEY, IssueKind.NON_KEY, IssueKind.DUPLICATE_KEY}
)

Issue = tuple[IssueKind, str, str]  # (kind, RAGBench field, message)

# Keys repeat across rows ("0a", "1b", ...): caching the cleaning pays on 100k-row scans.
clean_key = lru_cache(maxsize=8192)(_clean_key)


# -- finding issues ----------------------------------------------------------------------------
def _key_problem(key: str, valid: Collection[str], response: bool) -> Iterator[tuple[IssueKind, str]]:
    cleaned = clean_key(key)
    if cleaned != key:
        yield (
            IssueKind.TRAILING_DOT,
            f"key {key!r} has a trailing dot" if key.rstrip().endswith(".") else f"key {key!r} has stray white space",
        )
    if cleaned in valid:
        return
    shaped = is_response_key(cleaned) if response else parse_context_key(cleaned) is not None
    if shaped:
        yield IssueKind.UNKNOWN_KEY, f"key {cleaned!r} names no {'response ' if response else 'context '}sentence"
    else:
        yield IssueKind.NON_KEY, f"{key!r} is not a {'response' if response else 'context'} sentence key"


def _key_list_issues(
    keys: Sequence[str], valid: Collection[str], response: bool, prefix: str = ""
) -> Iterator[tuple[IssueKind, str]]:
    seen: set[str] = set()
    for key in keys:
        for kind, message in _key_problem(key, valid, response):
            yield kind, prefix + message
        cleaned = clean_key(key)
        if cleaned in seen:
            yield IssueKind.DUPLICATE_KEY, f"{prefix}key {cleaned!r} listed more than once"
        seen.add(cleaned)


def _effectively_unsupported(s: SentenceSupport) -> bool:
    return s.supported is False or (s.supported is None and not s.supporting_keys)


def find_issues(context_keys: Collection[str], response_keys: Sequence[str], labels: Labels | None) -> list[Issue]:
    """All label-quality issues of *labels* given the example's sentence keys (pure function,
    shared by :func:`label_issues` and :func:`ragviz.analysis.quality.scan.scan_rows`, the reference
    the columnar :func:`~ragviz.analysis.quality.scan.scan_dataset` is held to)."""
    if labels is None:
        return []
    issues: list[Issue] = []
    for field_name, keys in ((rb.RELEVANT, labels.relevant_keys), (rb.UTILIZED, labels.utilized_keys)):
        issues += [(kind, field_name, msg) for kind, msg in _key_list_issues(keys, context_keys, response=False)]

    relevant = {clean_key(k) for k in labels.relevant_keys}
    for key in dict.fromkeys(clean_key(k) for k in labels.utilized_keys):
        if key in context_keys and key not in relevant:
            issues.append((IssueKind.UTILIZED_NOT_RELEVANT, rb.UTILIZED, f"{key!r} is utilized but not relevant"))

    response_set = set(response_keys)
    support_by_key: dict[str, SentenceSupport] = {}
    for s in labels.support:
        for kind, msg in _key_problem(s.key, response_set, response=True):
            issues.append((kind, rb.SUPPORT, "response_sentence_key: " + msg))
        cleaned = clean_key(s.key)
        if cleaned in support_by_key:
            issues.append(
                (IssueKind.DUPLICATE_KEY, rb.SUPPORT, f"response sentence {cleaned!r} has more than one entry")
            )
        else:
            support_by_key[cleaned] = s
        prefix = f"response sentence {cleaned!r}: supporting "
        issues += [
            (kind, rb.SUPPORT, msg) for kind, msg in _key_list_issues(s.supporting_keys, context_keys, False, prefix)
        ]
    for key in response_keys:
        if key not in support_by_key:
            issues.append(
                (IssueKind.MISSING_SUPPORT, rb.SUPPORT, f"response sentence {key!r} has no support information")
            )

    if labels.unsupported_keys is not None:
        issues += [
            (kind, rb.UNSUPPORTED, msg)
            for kind, msg in _key_list_issues(labels.unsupported_keys, response_set, response=True)
        ]
        listed = {clean_key(k) for k in labels.unsupported_keys}
        for key, s in support_by_key.items():
            if _effectively_unsupported(s) == (key in listed):
                continue
            if key in listed:
                why = "is fully supported" if s.supported else "has supporting keys"
                issues.append(
                    (
                        IssueKind.SUPPORT_MISMATCH,
                        rb.UNSUPPORTED,
                        f"response sentence {key!r} {why} in {rb.SUPPORT} but is listed as unsupported",
                    )
                )
            else:
                why = "is not fully supported" if s.supported is False else "has no supporting keys"
                issues.append(
                    (
                        IssueKind.SUPPORT_MISMATCH,
                        rb.UNSUPPORTED,
                        f"response sentence {key!r} {why} in {rb.SUPPORT} but is not listed as unsupported",
                    )
                )
    return issues


def label_issues(example: Example, labels: Labels | None = None) -> list[Problem]:
    """Label-quality warnings for *example* (default: the labels it carries), located by its
    source row: ``PATH:ROW: all_relevant_sentence_keys: key '0b.' has a trailing dot``."""
    labels = example.labels if labels is None else labels
    path = example.source.path if example.source else example.uid
    row = example.source.row if example.source else None
    issues = find_issues(set(example.context_keys()), example.response_keys(), labels)
    return [Problem(path, row, field_name, message, "warning", kind.value) for kind, field_name, message in issues]


# -- the report table ---------------------------------------------------------------------------
def issue_rows(counts: dict[str, int], example_counts: dict[str, int]) -> list[dict[str, Any]]:
    """The label-quality table of the Data page: one row per issue kind of *counts* (occurrences),
    most frequent first, with its description and the number of examples it occurs in."""
    return [
        {"issue": k, "what": ISSUE_DESCRIPTIONS.get(k, k), "occurrences": n, "examples": example_counts.get(k, 0)}
        for k, n in sorted(counts.items(), key=lambda kv: -kv[1])
    ]


# -- normalize ---------------------------------------------------------------------------------
def _clean_keys(keys: Sequence[str], valid: Collection[str]) -> tuple[str, ...]:
    """Keys stripped of trailing dots, restricted to *valid*, first occurrence kept, order kept."""
    return tuple(dict.fromkeys(k for k in (clean_key(k) for k in keys) if k in valid))


def normalize(labels: Labels, example: Example, now: datetime | None = None) -> Labels:
    """*labels* with the mechanical issues fixed and nothing else.

    In ``relevant_keys``, ``utilized_keys`` and every sentence's ``supporting_keys``: strip trailing
    dots, drop keys that name no sentence and non-key words, drop duplicates (first kept). A support
    entry keyed ``"a."`` is re-keyed ``"a"`` (a later duplicate entry is dropped). When an entry's
    ``supported`` is null (the judge relied on its keys) and its keys change, the judge's verdict
    is written out (``True`` exactly when it had any supporting key) so dropping ``general`` never
    turns a supported sentence into an unsupported one.

    The result equals ``apply_changes(labels, diff_labels(labels, result))`` so the store replays
    it exactly; like any support edit that drops the stored unsupported list, which is then
    derived from the per-sentence support. Provenance: ``Provenance("human", "normalize", <UTC time>)``.
    """
    context = set(example.context_keys())
    response = set(example.response_keys())
    support: list[SentenceSupport] = []
    seen: set[str] = set()
    for s in labels.support:
        key = clean_key(s.key) if clean_key(s.key) in response else s.key
        if key in seen:
            continue
        seen.add(key)
        keys = _clean_keys(s.supporting_keys, context)
        supported = s.supported
        if supported is None and keys != s.supporting_keys:
            supported = bool(s.supporting_keys)
        support.append(SentenceSupport(key, supported, keys, s.explanation))
    candidate = labels.replace(
        relevant_keys=_clean_keys(labels.relevant_keys, context),
        utilized_keys=_clean_keys(labels.utilized_keys, context),
        support=tuple(support),
    )
    stamp = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    changes = [(c.field, c.new) for c in diff_labels(labels, candidate)]
    return apply_changes(labels, changes, Provenance("human", "normalize", stamp))
