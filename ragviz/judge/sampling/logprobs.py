"""The judge's confidence from the token probabilities of its kept answer (``--confidence logprobs``), pure.

The kept answer is asked with ``logprobs=true, top_logprobs=K``; the server sends, for every token of the answer,
its log probability given everything before it. :func:`verdict_shares` reads from them each sentence label's
probability, :func:`logprob_confidence` each metric's confidence (stored with ``n_samples`` 1,
:data:`LOGPROBS_SAMPLES`: one answer, read from its tokens), beside the confidence
:mod:`ragviz.judge.sampling.agreement` stores from samples.
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragviz.data.keys import clean_key
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import RELEVANT, SUPPORT, UTILIZED, unsupported_keys
from ragviz.metrics.trace import TRACE_METRICS, trace_scores
from ragviz.store.judge_confidence import LOGPROBS_SAMPLES, ExampleConfidence

__all__ = [
    "TOP_LOGPROBS",
    "TokenProbabilities",
    "bernoulli_confidence",
    "completeness_confidence",
    "logprob_confidence",
    "share_of_mean",
    "verdict_shares",
]

TOP_LOGPROBS = 5  # alternatives asked per token (OpenAI allows up to 20)
_LITERALS = {"true": True, "false": False, "null": None}
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WS = " \t\r\n"


@dataclass(frozen=True)
class _Node:
    """A JSON value of the answer and where it stands in the text: ``[start, end)``; ``value`` is a dict of
    nodes, a list of nodes or a scalar."""

    value: Any
    start: int
    end: int


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _parse(text: str, i: int) -> _Node:
    """The JSON value starting at *i* (after whitespace), with the spans of everything inside it."""
    i = _skip(text, i)
    char = text[i] if i < len(text) else ""
    if char == '"':
        value, end = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        return _Node(value, i, end)
    if char in "{[":
        close, items, fields = ("}" if char == "{" else "]"), [], {}
        j = _skip(text, i + 1)
        while text[j] != close:
            if char == "{":
                key = _parse(text, j)
                j = _skip(text, key.end)
                if text[j] != ":":
                    raise ValueError(f"':' expected at {j}")
                node = _parse(text, j + 1)
                fields[key.value] = node
            else:
                node = _parse(text, j)
                items.append(node)
            j = _skip(text, node.end)
            if text[j] == ",":
                j = _skip(text, j + 1)
            elif text[j] != close:
                raise ValueError(f"',' or {close!r} expected at {j}")
        return _Node(fields if char == "{" else items, i, j + 1)
    for word, value in _LITERALS.items():
        if text.startswith(word, i):
            return _Node(value, i, i + len(word))
    number = _NUMBER.match(text, i)
    if number is None:
        raise ValueError(f"a JSON value expected at {i}")
    return _Node(json.loads(number.group()), i, number.end())


class TokenProbabilities:
    """The answer's tokens laid over its text (by their UTF-8 bytes), to read the probability of any stretch."""

    def __init__(self, text: str, content: Sequence[Any]):
        spelled = b"".join(_token_bytes(item) for item in content)
        if spelled != text.encode("utf-8"):
            raise ValueError("the logprobs' tokens do not spell the answer")
        self.text = text
        self.items = list(content)
        self.starts: list[int] = []
        self.ends: list[int] = []
        at = 0
        for item in content:
            self.starts.append(at)
            at += len(_token_bytes(item))
            self.ends.append(at)
        self._byte_at = np.concatenate([[0], np.cumsum([len(c.encode("utf-8")) for c in text])]).astype(int)

    def tokens_over(self, start: int, end: int) -> range:
        """Indices of the tokens overlapping the characters ``[start, end)``."""
        lo, hi = int(self._byte_at[start]), int(self._byte_at[end])
        return range(bisect_right(self.ends, lo), bisect_left(self.starts, hi))

    def probability(self, start: int, end: int) -> float:
        """The product of the probabilities of the tokens over ``[start, end)``."""
        return math.exp(sum(float(self.items[j]["logprob"]) for j in self.tokens_over(start, end)))

    def verdict(self, node: _Node) -> float:
        """The probability of the token that carries the literal at *node* (its first character)."""
        over = self.tokens_over(node.start, node.start + 1)
        if not len(over):
            raise ValueError("no token carries the verdict")
        return math.exp(float(self.items[over[0]]["logprob"]))


def _token_bytes(item: Any) -> bytes:
    raw = item.get("bytes") if isinstance(item, dict) else None
    if isinstance(raw, list) and all(isinstance(b, int) for b in raw):
        return bytes(raw)
    return str(item.get("token", "") if isinstance(item, dict) else "").encode("utf-8")


def _list_shares(tokens: TokenProbabilities, node: _Node, keys: Sequence[str]) -> dict[str, float]:
    """Listed key -> probability it was written there; every other key -> probability the list closed there."""
    found: dict[str, float] = {}
    after = node.start  # the '[' opens the first item's stretch
    for item in node.value:
        key_end = item.end - 1 if isinstance(item.value, str) else item.end
        key = clean_key(item.value) if isinstance(item.value, str) else None
        if key is not None and key not in found:
            found[key] = tokens.probability(after, key_end)
        after = item.end
    closed = tokens.probability(after, node.end)
    return {k: found.get(k, closed) for k in keys}


def verdict_shares(text: str, content: Sequence[Any], example: Example) -> dict[str, dict[str, float]]:
    """Per label kind, sentence key -> the probability the answer's tokens give the kept label:

    - **supported** (a response sentence): the probability of the token that carries the kept ``fully_supported``
      verdict (``true`` / ``false``) given the answer before it. It is the probability the model gave its own verdict
      at that point, not a calibrated probability that the verdict is right. (The K alternatives per token are asked
      too, as OpenAI's API pairs them with ``logprobs``; the figures here need only the chosen tokens.)
    - **relevant / utilized, a key listed**: the probability that the key was written where it was: the product of the
      probabilities of the tokens from the end of the item before it (the separator, i.e. the choice to go on listing)
      to the key's last character.
    - **relevant / utilized, a key not listed**: the probability that the list was closed where it was (the tokens from
      the end of the last item to the ``]``): the model's own chance of adding no further key there. It is the same
      for every key left out of a list, and says nothing of which key the model might have added.

    Raises :class:`ValueError` when the tokens do not spell *text* or its JSON object cannot be read.
    """
    tokens = TokenProbabilities(text, content)
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object in the answer")
    answer = _parse(text, start).value
    if not isinstance(answer, dict):
        raise ValueError("the answer is not a JSON object")
    context = example.context_keys()
    supported: dict[str, float] = {}
    support = answer.get(SUPPORT)
    for entry in support.value if support is not None and isinstance(support.value, list) else []:
        fields = entry.value if isinstance(entry.value, dict) else {}
        key_node, verdict = fields.get("response_sentence_key"), fields.get("fully_supported")
        if key_node is not None and isinstance(key_node.value, str) and verdict is not None:
            if isinstance(verdict.value, bool):
                supported.setdefault(clean_key(key_node.value), tokens.verdict(verdict))
    shares = {"supported": {k: supported[k] for k in example.response_keys() if k in supported}}
    for kind, field in (("relevant", RELEVANT), ("utilized", UTILIZED)):
        node = answer.get(field)
        if node is None or not isinstance(node.value, list):
            raise ValueError(f"{field} is not a list")
        shares[kind] = _list_shares(tokens, node, context)
    return shares


def bernoulli_confidence(probabilities: Sequence[float], n: int) -> float | None:
    """``1 - 2 * sd`` of the share of *n* independent draws that come out true (``None`` when *n* is 0).

    >>> bernoulli_confidence([1.0, 0.5], 2)  # sd = sqrt(0.25) / 2
    0.5
    """
    if n <= 0:
        return None
    sd = math.sqrt(sum(p * (1 - p) for p in probabilities)) / n
    return min(1.0, max(0.0, 1.0 - 2.0 * sd))


def completeness_confidence(relevant: Sequence[float], utilized: Sequence[float]) -> float:
    """``1 - 2 * sd`` of ``|R ∩ U| / |R|`` (1 when ``R`` is empty) with sentence i relevant with probability
    ``relevant[i]`` and utilized with ``utilized[i]``, all independent: the distribution of (|R|, |R ∩ U|) is
    counted out sentence by sentence."""
    n = len(relevant)
    dist = np.zeros((n + 1, n + 1))
    dist[0, 0] = 1.0
    for r, u in zip(relevant, utilized):
        step = dist * (1 - r)
        step[1:, :] += dist[:-1, :] * r * (1 - u)
        step[1:, 1:] += dist[:-1, :-1] * r * u
        dist = step
    sizes = np.arange(n + 1, dtype=float)
    value = np.where(sizes[:, None] > 0, sizes[None, :] / np.maximum(sizes[:, None], 1), 1.0)
    mean = float((dist * value).sum())
    var = max(0.0, float((dist * value**2).sum()) - mean**2)
    return min(1.0, max(0.0, 1.0 - 2.0 * math.sqrt(var)))


def share_of_mean(labels: Labels, shares: dict[str, dict[str, float]], kind: str, key: str) -> float:
    """The probability that sentence *key* is *kind* (relevant, utilized, supported), from the share agreeing
    with the kept label."""
    share = shares[kind].get(key, 1.0)
    if kind == "relevant":
        kept = key in labels.relevant_keys
    elif kind == "utilized":
        kept = key in labels.utilized_keys
    else:
        kept = key not in set(unsupported_keys(labels))
    return share if kept else 1.0 - share


def logprob_confidence(example: Example, kept: Labels, text: str, content: Sequence[Any]) -> ExampleConfidence:
    """What the kept answer's token probabilities say of *example*; :class:`ValueError` when they cannot be read.

    Each metric's confidence is ``1 - 2 * sd`` as in sample mode, with the sd of the metric when every sentence label
    is drawn on its own with these probabilities (independent draws: an assumption; the tokens' probabilities are
    conditional on the answer before them): exact for relevance and utilization (sums of independent draws), adherence
    (all sentences supported) and completeness (the distribution of ``|R ∩ U| / |R|`` counted out over the sentences).
    Such a confidence is stored with ``n_samples`` 1 (:data:`LOGPROBS_SAMPLES`): one answer, read from its tokens.
    """
    shares = verdict_shares(text, content, example)
    context, response = example.context_keys(), example.response_keys()
    relevant = [share_of_mean(kept, shares, "relevant", k) for k in context]
    utilized = [share_of_mean(kept, shares, "utilized", k) for k in context]
    supported = [share_of_mean(kept, shares, "supported", k) for k in response]
    n = example.n_context_sentences
    all_supported = math.prod(supported)
    values: dict[str, float | None] = {
        "relevance": bernoulli_confidence(relevant, n),
        "utilization": bernoulli_confidence(utilized, n),
        "completeness": completeness_confidence(relevant, utilized),
        "adherence": min(1.0, max(0.0, 1.0 - 2.0 * math.sqrt(all_supported * (1 - all_supported)))),
    }
    scores = trace_scores(kept, n)
    metrics = {m: (values[m] if getattr(scores, m) is not None else None) for m in TRACE_METRICS}
    return ExampleConfidence(example.uid, LOGPROBS_SAMPLES, metrics, shares)
