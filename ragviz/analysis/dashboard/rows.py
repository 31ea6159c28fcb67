"""The Dashboard's per-row figures, on columns: each example's TRACe scores and, per metric, how far
the one label change that moves it most moves it (:func:`ragviz.analysis.dashboard.triage.best_moves`).

:func:`row_figures` computes them for the labels the rows carry (the judge's), on Arrow columns: no Python
object per row. They depend on the data only, so a page caches them per data file. :meth:`RowFigures.with_rows`
then puts in the few rows whose current labels are someone else's (a person's decision, a judge label set in the
store), each scored on its own: one decision changes one row's figures, never a rescan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from ragviz.analysis.dashboard.move_sizes import best_move_sizes
from ragviz.analysis.dashboard.triage import best_moves
from ragviz.data.dataset import iter_examples
from ragviz.data.label_columns import (
    dotted_response_key_rows,
    label_columns,
    label_columns_ok,
    label_values_ok,
    present_type,
    with_matched_keys,
)
from ragviz.data.ragbench import LABEL_FIELDS, LLM_PREFIX
from ragviz.metrics.trace import TRACE_METRICS, trace_arrays, trace_scores

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.data.model import Example, Labels

__all__ = ["BATCH_ROWS", "RowFigures", "WORKERS", "figures_of", "row_figures", "rows_are_judge_labels"]


#: Rows scored at once (progress is reported per batch), and the threads scoring batches.
BATCH_ROWS = 16384
WORKERS = 2
_COLUMNS = ("documents_sentences", "response_sentences", *LABEL_FIELDS)


@dataclass(frozen=True)
class RowFigures:
    """Per row of a dataset (arrays of its length): ``scores[metric]``, the TRACe score (NaN for
    null), and ``moves[metric]``, ``|delta|`` of the single label change that moves that metric
    most (0.0 when none does, NaN for an unlabeled row). Read-only: shared between sessions."""

    scores: dict[str, np.ndarray]
    moves: dict[str, np.ndarray]

    def with_rows(self, rows: Mapping[int, tuple[Example, Labels | None]]) -> RowFigures:
        """These figures with each row of *rows* (index -> its example and current labels) scored
        under those labels instead (copies; this object is not changed)."""
        scores = {m: v.copy() for m, v in self.scores.items()}
        moves = {m: v.copy() for m, v in self.moves.items()}
        for i, (example, labels) in rows.items():
            row_scores, row_moves = figures_of(example, labels)
            for m in TRACE_METRICS:
                scores[m][i] = row_scores[m]
                moves[m][i] = row_moves[m]
        return RowFigures(scores, moves)

    @property
    def labeled(self) -> np.ndarray:
        """Per row: whether it is labeled (its adherence is defined)."""
        return ~np.isnan(self.scores["adherence"])


def figures_of(example: Example, labels: Labels | None) -> tuple[dict[str, float], dict[str, float]]:
    """One example's scores and move sizes (see :class:`RowFigures`) under *labels*."""
    if labels is None:
        return dict.fromkeys(TRACE_METRICS, np.nan), dict.fromkeys(TRACE_METRICS, np.nan)
    scores = trace_scores(labels, example.n_context_sentences)
    moves = best_moves(example, labels)
    return (
        {m: np.nan if (v := getattr(scores, m)) is None else v for m in TRACE_METRICS},
        {m: abs(moves[m][1]) if m in moves else 0.0 for m in TRACE_METRICS},
    )


def rows_are_judge_labels(schema: pa.Schema) -> bool:
    """Whether the labels of rows with *schema* are the judge's, readable on columns: no ``llm_``
    label copies and no ``label_source`` column (so no row's labels are a person's:
    :func:`ragviz.data.ragbench.example_from_row`), keyed sentences as lists of ``[key, text]``
    strings, and label columns of RAGBench's types (:func:`ragviz.data.label_columns.label_columns_ok`)."""
    names = set(schema.names)
    if any(LLM_PREFIX + f in names for f in LABEL_FIELDS) or "label_source" in names:
        return False
    for name, depth in (("documents_sentences", 3), ("response_sentences", 2)):
        t = present_type(schema, name)
        for _ in range(depth if t is not None else 0):
            if t is None or not pa.types.is_list(t):
                return False
            t = t.value_type
        if t is not None and not (pa.types.is_string(t) or pa.types.is_null(t)):
            return False
    return label_columns_ok(schema)


def row_figures(
    dataset: Dataset, progress: Callable[[int, int], None] | None = None, workers: int = WORKERS
) -> RowFigures:
    """The figures of every row of *dataset* under the labels the rows carry, as the judge's
    (:func:`ragviz.analysis.labelsets.named.judge_labels_of` with no stored judge set); *progress* is told
    ``(rows done, rows)`` after each batch (from the calling thread). Batches scored on columns
    run in *workers* threads (Arrow and numpy work without the GIL), in row order.

    On columns: :func:`ragviz.data.label_columns.label_columns`, :func:`ragviz.metrics.trace.trace_arrays`,
    :func:`ragviz.analysis.dashboard.move_sizes.best_move_sizes`. Data whose rows do not carry the judge's labels as
    plain RAGBench columns (a reviewed export with ``llm_`` labels or ``label_source``, label columns of other
    types, null keys inside key lists; :func:`rows_are_judge_labels`) is scored example by example through
    :func:`ragviz.metrics.trace.trace_scores` and :func:`~ragviz.analysis.dashboard.triage.best_moves`, as
    :meth:`RowFigures.with_rows` scores its rows."""
    n, step = len(dataset), progress or (lambda done, total: None)
    table = dataset.table.select([c for c in _COLUMNS if c in dataset.table.column_names])
    n_context = np.asarray(dataset.n_context_sentences, np.int64)
    scores = {m: np.full(n, np.nan) for m in TRACE_METRICS}
    moves = {m: np.full(n, np.nan) for m in TRACE_METRICS}
    columnar = rows_are_judge_labels(dataset.table.schema)
    spans = [(start, min(n, start + BATCH_ROWS)) for start in range(0, n, BATCH_ROWS)]

    def score(span: tuple[int, int]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None:
        start, stop = span
        batch = table.slice(start, stop - start)
        if not (columnar and label_values_ok(batch)):
            return None  # scored example by example, in the calling thread
        labels = label_columns(batch)
        moves = best_move_sizes(batch, labels, n_context[start:stop])
        dotted = dotted_response_key_rows(batch)  # "a." is sentence "a" once loaded: those rows' moves as loaded
        if len(dotted):
            matched = with_matched_keys(batch.take(pa.array(dotted, pa.int64())))
            for m, sizes in best_move_sizes(matched, label_columns(matched), n_context[start:stop][dotted]).items():
                moves[m][dotted] = sizes
        return trace_arrays(labels, n_context[start:stop]), moves

    with ThreadPoolExecutor(max(1, min(workers, len(spans)))) as pool:
        for (start, stop), found in zip(spans, pool.map(score, spans)):
            if found is None:
                _score_examples(iter_examples(dataset, range(start, stop)), scores, moves)
            else:
                for into, values in zip((scores, moves), found):
                    for m, column in values.items():
                        into[m][start:stop] = column
            step(stop, n)
    return RowFigures(scores, moves)


def _score_examples(
    examples: Iterable[tuple[int, Example]], scores: dict[str, np.ndarray], moves: dict[str, np.ndarray]
) -> None:
    for i, example in examples:
        row_scores, row_moves = figures_of(example, example.judge_labels)
        for m in TRACE_METRICS:
            scores[m][i] = row_scores[m]
            moves[m][i] = row_moves[m]
