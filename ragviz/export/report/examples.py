"""The report's worked examples: two or three audited examples that show the judge's most common error, each
with its keyed sentences under the judge's and people's labels and every TRACe formula filled in.

The examples come from :func:`ragviz.analysis.dashboard.triage.disagreements` (the Dashboard's "What to review
next"); the formulas from :func:`ragviz.analysis.trace_formulas.formula_terms`, the sentence states from
:func:`ragviz.analysis.review.edits.document_spans` / :func:`~ragviz.analysis.review.edits.response_spans`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ragviz.analysis.dashboard.triage import Disagreement
from ragviz.analysis.labelsets.diff import ExampleDiff
from ragviz.analysis.review.edits import ContextSpan, ResponseSpan, document_spans, response_spans
from ragviz.analysis.trace_formulas import FormulaTerm, formula_terms
from ragviz.data.model import Example, Labels
from ragviz.metrics.trace import TRACE_METRICS

__all__ = ["MAX_CHARS", "MAX_EXAMPLES", "MAX_SENTENCES", "WorkedExample", "error_kind", "worked_examples"]


MAX_EXAMPLES = 3
MAX_SENTENCES = 40  # context sentences shown per example: those either side counts or cites (the rest are counted)
MAX_CHARS = 600  # characters shown per sentence


@dataclass(frozen=True)
class WorkedExample:
    """One example: what kind of error it shows, the text as keyed sentences under both label sets and each
    formula filled in under both."""

    uid: str
    dataset: str
    question: str
    kind: str
    changes: tuple[str, ...]
    judge_context: tuple[tuple[ContextSpan, ...], ...]
    people_context: tuple[tuple[ContextSpan, ...], ...]
    judge_response: tuple[ResponseSpan, ...]
    people_response: tuple[ResponseSpan, ...]
    judge_terms: tuple[FormulaTerm, ...]
    people_terms: tuple[FormulaTerm, ...]
    n_context: int


def error_kind(diff: ExampleDiff) -> str:
    """The metric the difference moves most and which way the judge errs, e.g. ``"adherence: the judge says
    higher"`` (ties: the metric first in TRACe order)."""
    deltas = diff.deltas
    moved = [(abs(d), -TRACE_METRICS.index(m), m, d) for m, d in deltas.items() if d]
    if not moved:
        return "same scores, different sentences"
    _, _, metric, delta = max(moved)
    return f"{metric}: the judge says {'higher' if delta < 0 else 'lower'} than people"


def _changes(diff: ExampleDiff) -> tuple[str, ...]:
    out = []
    for what, keys in (
        ("people marked relevant", diff.relevant_added),
        ("people unmarked relevant", diff.relevant_removed),
        ("people marked utilized", diff.utilized_added),
        ("people unmarked utilized", diff.utilized_removed),
    ):
        if keys:
            out.append(f"{what}: {' '.join(keys)}")
    for flip in diff.verdicts_flipped:
        out.append(f"response sentence {flip.key}: the judge says {flip.before}, people say {flip.after}")
    return tuple(out)


def _cut_context(spans: list[list[ContextSpan]], keep: set[str]) -> tuple[tuple[ContextSpan, ...], ...]:
    """The sentences in *keep* (the ones either side counts or cites), at most :data:`MAX_SENTENCES`, per document."""
    out, left = [], MAX_SENTENCES
    for doc in spans:
        kept = [s for s in doc if s.key in keep][: max(left, 0)]
        left -= len(kept)
        out.append(tuple(ContextSpan(s.key, _cut(s.text), s.state, s.linked) for s in kept))
    return tuple(out)


def _keyed(labels: Labels, response: Sequence[ResponseSpan]) -> set[str]:
    cited = {k for span in response for k in span.supporting_keys}
    return {*labels.relevant_keys, *labels.utilized_keys, *cited}


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + "…"


def _example(ex: Example, people: Labels, judge: Labels, diff: ExampleDiff, kind: str) -> WorkedExample:
    def response(labels: Labels) -> tuple[ResponseSpan, ...]:
        return tuple(
            ResponseSpan(s.key, _cut(s.text), s.status, s.supporting_keys, _cut(s.explanation))
            for s in response_spans(ex, labels)
        )

    judge_response, people_response = response(judge), response(people)
    keep = _keyed(judge, judge_response) | _keyed(people, people_response)
    return WorkedExample(
        uid=ex.uid,
        dataset=ex.dataset,
        question=_cut(ex.question),
        kind=kind,
        changes=_changes(diff),
        judge_context=_cut_context(document_spans(ex, judge), keep),
        people_context=_cut_context(document_spans(ex, people), keep),
        judge_response=judge_response,
        people_response=people_response,
        judge_terms=tuple(formula_terms(ex, judge)),
        people_terms=tuple(formula_terms(ex, people)),
        n_context=ex.n_context_sentences,
    )


def worked_examples(
    found: Sequence[Disagreement], triples: Sequence[tuple[Example, Labels, Labels]], limit: int = MAX_EXAMPLES
) -> list[WorkedExample]:
    """Up to *limit* of the examples in *found* (judge vs people, most differing first) whose error is the most
    common kind among them (:func:`error_kind`), topped up with the next ones to at least two."""
    pairs = {ex.uid: (ex, people, judge) for ex, people, judge in triples}
    usable = [d for d in found if d.uid in pairs]
    if not usable:
        return []
    kinds = {d.uid: error_kind(d.diff) for d in usable}
    common = Counter(kinds.values()).most_common()
    typical = sorted(common, key=lambda kc: (-kc[1], kc[0]))[0][0]
    chosen = [d for d in usable if kinds[d.uid] == typical][:limit]
    chosen += [d for d in usable if d not in chosen][: max(0, 2 - len(chosen))]
    return [_example(*pairs[d.uid], d.diff, kinds[d.uid]) for d in chosen]
