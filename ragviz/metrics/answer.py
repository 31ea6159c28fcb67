"""Answer exact match and token F1 of the response against the reference answer(s).

Two normalisations, both offered because users arrive with numbers from either: **SQuAD v1.1** (the official
``evaluate-v1.1.py``, :func:`normalize_answer`; F1 over the token *multiset*) and the **set** variant
(:func:`set_tokens`, :func:`f1_set`; F1 over token *sets*, articles kept). With several gold answers every score
is the maximum over the golds.

References: Rajpurkar et al., "SQuAD: 100,000+ Questions for Machine Comprehension of Text", 2016.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.data.model import Example

__all__ = [
    "ANSWER_METRICS",
    "AnswerScores",
    "answer_scores",
    "exact_match",
    "example_answer",
    "f1_score",
    "f1_set",
    "family_records",
    "golds_of",
    "normalize_answer",
    "set_tokens",
]


ANSWER_METRICS = ("em", "f1", "f1_set")

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)
_PUNCT_TABLE = str.maketrans("", "", string.punctuation)
_NON_WORD = re.compile(r"[^\w\s]")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalisation: lower-case, delete ASCII punctuation, drop the articles *a/an/the*, collapse
    white space.

    >>> normalize_answer("The  Eiffel Tower.")
    'eiffel tower'
    """
    text = text.lower().translate(_PUNCT_TABLE)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the SQuAD-normalised strings are equal, else 0.0.

    .. math:: \\mathrm{EM} = [\\,\\mathrm{norm}(p) = \\mathrm{norm}(g)\\,]

    Notes: two answers that normalise to the empty string match (1.0), as in the official script.

    >>> exact_match("The Eiffel Tower", "Eiffel Tower.")
    1.0
    """
    return float(normalize_answer(prediction) == normalize_answer(gold))


def f1_score(prediction: str, gold: str) -> float:
    """SQuAD v1.1 token F1 over multisets.

    .. math::
        c = |T_p \\cap T_g|_{\\mathrm{multiset}}, \\quad P = c/|T_p|, \\quad R = c/|T_g|, \\quad
        F_1 = 2PR/(P+R)

    Notes: 0.0 when no token is shared, including when either side is empty (v1.1, not v2.0).

    >>> f1_score("Paris Paris Paris", "Paris")
    0.5
    """
    return _f1_of_tokens(normalize_answer(prediction).split(), normalize_answer(gold).split())


def _f1_of_tokens(pred_tokens: list[str], gold_tokens: list[str]) -> float:
    return _f1_of_counts(Counter(pred_tokens), len(pred_tokens), gold_tokens)


def _f1_of_counts(pred_counts: Mapping[str, int], n_pred: int, gold_tokens: list[str]) -> float:
    """Multiset F1 with the prediction already counted (so several golds count it once)."""
    remaining = dict(pred_counts)
    num_same = 0
    for token in gold_tokens:
        left = remaining.get(token, 0)
        if left:
            remaining[token] = left - 1
            num_same += 1
    return _f1_of_overlap(num_same, n_pred, len(gold_tokens))


def _f1_of_overlap(num_same: int, n_pred: int, n_gold: int) -> float:
    """2PR/(P+R) with P = num_same/n_pred, R = num_same/n_gold; 0.0 when nothing is shared."""
    if num_same == 0:
        return 0.0
    p = num_same / n_pred
    r = num_same / n_gold
    return (2 * p * r) / (p + r)


def set_tokens(text: str) -> set[str]:
    """Tokens of the set variant: lower-case, strip ``[^\\w\\s]``, split, as a set.

    >>> sorted(set_tokens("The Eiffel-Tower!"))
    ['eiffeltower', 'the']
    """
    return set(_NON_WORD.sub("", text.lower()).split())


def f1_set(prediction: str, gold: str) -> float:
    """Token F1 over *sets* (no article removal).

    .. math::
        c = |S_p \\cap S_g|, \\quad P = c/|S_p|, \\quad R = c/|S_g|, \\quad F_1 = 2PR/(P+R)

    Notes: 0.0 when either side has no token or nothing is shared.

    >>> f1_set("Paris Paris Paris", "Paris"), f1_set("The Eiffel Tower", "Eiffel Tower.")
    (1.0, 0.8)
    """
    return _f1_of_sets(set_tokens(prediction), set_tokens(gold))


def _f1_of_sets(pred: set[str], gold_set: set[str]) -> float:
    if not pred or not gold_set:
        return 0.0
    return _f1_of_overlap(len(pred & gold_set), len(pred), len(gold_set))


def golds_of(reference: str | Sequence[str] | None) -> tuple[str, ...]:
    """The gold answers: a string is one gold, a list several; ``None``/empty list -> none."""
    if reference is None:
        return ()
    if isinstance(reference, str):
        return (reference,)
    return tuple(str(g) for g in reference)


@dataclass(frozen=True)
class AnswerScores:
    em: float | None
    f1: float | None
    f1_set: float | None

    def as_dict(self) -> dict[str, float | None]:
        return dict(vars(self))


def answer_scores(prediction: str, reference: str | Sequence[str] | None) -> AnswerScores:
    """EM, F1 and set-F1 of *prediction* against the reference answer(s); all ``None`` without one.

    >>> answer_scores("Paris", ["Lyon", "paris."])
    AnswerScores(em=1.0, f1=1.0, f1_set=1.0)
    """
    golds = golds_of(reference)
    if not golds:
        return AnswerScores(None, None, None)
    # Same values as exact_match / f1_score / f1_set, with the prediction normalised once.
    pred_norm, pred_set = normalize_answer(prediction), set_tokens(prediction)
    pred_tokens = pred_norm.split()
    pred_counts = Counter(pred_tokens)
    em = f1 = f1s = 0.0
    for gold in golds:
        gold_norm = normalize_answer(gold)
        em = max(em, float(pred_norm == gold_norm))
        f1 = max(f1, _f1_of_counts(pred_counts, len(pred_tokens), gold_norm.split()))
        f1s = max(f1s, _f1_of_sets(pred_set, set_tokens(gold)))
    return AnswerScores(em=em, f1=f1, f1_set=f1s)


def example_answer(example: Example) -> AnswerScores:
    return answer_scores(example.response, example.reference_answer)


def family_records(rows: Iterable[dict[str, Any]], datasets: Sequence[str] | None = None) -> Iterator[dict]:
    """One record per row (``id``, ``response``, ``reference_answer`` needed) with ``em``, ``f1``, ``f1_set``.

    *datasets* gives the per-row dataset name (``Dataset.datasets``); else the row's ``dataset_name``.
    """
    for i, row in enumerate(rows):
        dataset = datasets[i] if datasets is not None else str(row.get("dataset_name") or "")
        yield {
            "id": "" if row.get("id") is None else str(row["id"]),
            "dataset": dataset,
            **answer_scores(row.get("response") or "", row.get("reference_answer")).as_dict(),
        }
