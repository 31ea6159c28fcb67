"""The data model: examples, their keyed sentences, and label sets with provenance.

Everything here is immutable; a human correction produces a new :class:`Labels` (see
``ragviz.data.labels`` for the edit operations) and the judge's original stays beside it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Example", "LabelSource", "Labels", "Provenance", "RowRef", "Sentence", "SentenceSupport", "example_uid"]


LabelSource = Literal["llm", "human"]


@dataclass(frozen=True)
class Sentence:
    """One keyed sentence: ``Sentence("0b", "Water boils at 100 C.")``."""

    key: str
    text: str


@dataclass(frozen=True)
class SentenceSupport:
    """Support verdict for one response sentence.

    ``supported`` is ``True``/``False``, or ``None`` when the judge left ``fully_supported`` null
    (the gpt-4-turbo subsets of RAGBench); then the sentence counts as unsupported exactly when it
    has no supporting keys (see :func:`ragviz.metrics.trace.unsupported_keys`).
    """

    key: str
    supported: bool | None
    supporting_keys: tuple[str, ...] = ()
    explanation: str = ""


@dataclass(frozen=True)
class Provenance:
    """Who produced a label set: ``source`` is ``"llm"`` or ``"human"``; ``name`` is the model or
    annotator; ``time`` an ISO-8601 timestamp when known; ``prompt_version`` for judge labels."""

    source: LabelSource = "llm"
    name: str = ""
    time: str | None = None
    prompt_version: str | None = None


@dataclass(frozen=True)
class Labels:
    """One label set for one example, in RAGBench terms.

    ``unsupported_keys`` is the row's stored ``unsupported_response_sentence_keys`` when it has
    one, else ``None`` (then it is derived from ``support``). Key lists are kept exactly as stored,
    bogus keys included, until :func:`ragviz.analysis.quality.issues.normalize` cleans them.

    The last four fields are overrides of the other metric families' inputs; ``None`` = not set,
    use the example's own value (``Example.relevant_ids``, ``extra["answer_similarity"]``, direct
    chunk labels in ``extra`` or the sentence-derived ones): ``relevant_ids`` the gold retrieval
    ids, ``answer_similarity`` the 0..5 Tonic score, ``chunk_relevant`` / ``chunk_utilized`` one
    boolean per document.
    """

    relevant_keys: tuple[str, ...] = ()
    utilized_keys: tuple[str, ...] = ()
    support: tuple[SentenceSupport, ...] = ()
    unsupported_keys: tuple[str, ...] | None = None
    relevance_explanation: str = ""
    overall_supported_explanation: str = ""
    overall_supported: bool | None = None
    provenance: Provenance = field(default_factory=Provenance)
    relevant_ids: tuple[str, ...] | None = None
    answer_similarity: float | None = None
    chunk_relevant: tuple[bool, ...] | None = None
    chunk_utilized: tuple[bool, ...] | None = None

    def support_for(self, response_key: str) -> SentenceSupport | None:
        for s in self.support:
            if s.key == response_key:
                return s
        return None

    def replace(self, **changes: Any) -> Labels:
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class RowRef:
    """Where an example came from: file path and 1-based record number (JSONL: line number)."""

    path: str
    row: int

    def __str__(self) -> str:
        return f"{self.path}:{self.row}"


@dataclass(frozen=True)
class Example:
    """One question, its retrieved documents split into keyed sentences, the response, its labels.

    ``labels`` is the label set carried by the input (``None``: the row is *unlabeled*).
    ``judge_labels`` is the LLM's original label set: the same object as ``labels`` for a plain
    judge-labelled row, the ``llm_``-prefixed copy for a row exported after human review.
    Identity is :attr:`uid` = (dataset, id, generation model): RAGBench repeats ``id`` when two
    generation models answered the same question.
    """

    id: str
    dataset: str
    question: str
    documents: tuple[str, ...]
    document_sentences: tuple[tuple[Sentence, ...], ...]
    response: str
    response_sentences: tuple[Sentence, ...]
    generation_model: str = ""
    labels: Labels | None = None
    judge_labels: Labels | None = None
    reference_answer: str | tuple[str, ...] | None = None
    retrieved_ids: tuple[str, ...] | None = None
    relevant_ids: tuple[str, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    source: RowRef | None = field(default=None, compare=False)

    @property
    def uid(self) -> str:
        """Stable identity string ``dataset/id/generation_model`` used by the store and exports."""
        return example_uid(self.dataset, self.id, self.generation_model)

    @property
    def n_context_sentences(self) -> int:
        return sum(len(doc) for doc in self.document_sentences)

    def context_sentences(self) -> Iterator[Sentence]:
        for doc in self.document_sentences:
            yield from doc

    def context_keys(self) -> list[str]:
        return [s.key for s in self.context_sentences()]

    def response_keys(self) -> list[str]:
        return [s.key for s in self.response_sentences]

    def with_labels(self, labels: Labels | None) -> Example:
        return dataclasses.replace(self, labels=labels)


def example_uid(dataset: str, example_id: str, generation_model: str) -> str:
    return f"{dataset}/{example_id}/{generation_model}"
