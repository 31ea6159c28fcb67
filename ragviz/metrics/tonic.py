"""Tonic Validate's chunk-level metrics, derived from the same sentence labels (or set directly).

A *chunk* is one retrieved document. Chunk *d* is **relevant** when any of its sentences (keys
``{d}a``, ``{d}b`` ...) is in ``relevant_keys`` and **used** when any is in ``utilized_keys``, unless
the row sets chunk labels directly (``chunk_relevant`` / ``chunk_utilized``: one boolean per
document). A response sentence is supported unless it is among
:func:`ragviz.metrics.trace.unsupported_keys`. ``answer_similarity`` is a 0..5 judge score against
the reference answer (a person may override it); absent -> ``None``.

References: Tonic Validate (tonic-ai/tonic_validate), metric definitions in its README.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.data.keys import parse_context_key
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys

__all__ = [
    "CHUNK_RELEVANT_FIELD",
    "CHUNK_USED_FIELD",
    "ROW_COLUMNS",
    "SIMILARITY_FIELD",
    "SIMILARITY_MAX",
    "TONIC_METRICS",
    "TonicScores",
    "UNLABELED",
    "answer_consistency",
    "answer_consistency_binary",
    "augmentation_accuracy",
    "augmentation_precision",
    "chunk_counts",
    "chunk_flags",
    "example_inputs",
    "example_tonic",
    "family_records",
    "overall",
    "retrieval_precision",
    "supported_counts",
    "tonic_arrays",
    "tonic_scores",
]


TONIC_METRICS = (
    "retrieval_precision",
    "augmentation_accuracy",
    "augmentation_precision",
    "answer_consistency",
    "answer_consistency_binary",
    "answer_similarity",
    "overall",
)
CHUNK_RELEVANT_FIELD = "chunk_relevant"
CHUNK_USED_FIELD = "chunk_utilized"
SIMILARITY_FIELD = "answer_similarity"
SIMILARITY_MAX = 5.0


def chunk_flags(sentence_keys: Iterable[str], n_documents: int) -> list[bool]:
    """Per document: does any of *sentence_keys* belong to it? Keys naming no document are ignored.

    >>> chunk_flags(["0b", "2a", "7c", "junk"], 3)
    [True, False, True]
    """
    flags = [False] * n_documents
    for key in set(sentence_keys):
        parsed = parse_context_key(key)
        if parsed is not None and parsed[0] < n_documents:
            flags[parsed[0]] = True
    return flags


def retrieval_precision(relevant: Sequence[bool]) -> float | None:
    """Share of retrieved chunks that are relevant to the question.

    .. math:: \\mathrm{retrieval\\_precision} = \\frac{1}{C}\\sum_d \\mathrm{rel}_d

    Notes: ``None`` when nothing was retrieved (C = 0).

    >>> retrieval_precision([True, False, False, True])
    0.5
    """
    return sum(relevant) / len(relevant) if relevant else None


def augmentation_accuracy(used: Sequence[bool]) -> float | None:
    """Share of retrieved chunks used in the answer.

    .. math:: \\mathrm{augmentation\\_accuracy} = \\frac{1}{C}\\sum_d \\mathrm{used}_d

    Notes: ``None`` when C = 0.

    >>> augmentation_accuracy([True, False])
    0.5
    """
    return sum(used) / len(used) if used else None


def augmentation_precision(relevant: Sequence[bool], used: Sequence[bool]) -> float | None:
    """Share of the relevant chunks that the answer used.

    .. math:: \\mathrm{augmentation\\_precision} = |\\mathrm{Rel} \\cap \\mathrm{Used}| / |\\mathrm{Rel}|

    Notes: 0.0 when no chunk is relevant; ``None`` when C = 0.

    >>> augmentation_precision([True, True, False], [True, False, True])
    0.5
    >>> augmentation_precision([False], [True])
    0.0
    """
    if not relevant:
        return None
    n_relevant = sum(relevant)
    if n_relevant == 0:
        return 0.0
    return sum(r and u for r, u in zip(relevant, used)) / n_relevant


def answer_consistency(n_supported: int, n_sentences: int) -> float | None:
    """Share of response sentences supported by the retrieved context.

    .. math:: \\mathrm{answer\\_consistency} = |\\{s : s \\text{ supported}\\}| / S

    Notes: ``None`` when the response has no sentence.

    >>> answer_consistency(3, 4)
    0.75
    """
    return n_supported / n_sentences if n_sentences else None


def answer_consistency_binary(n_supported: int, n_sentences: int) -> float | None:
    """1.0 when every response sentence is supported, else 0.0; ``None`` without sentences.

    .. math:: \\mathrm{answer\\_consistency\\_binary} = [\\,\\mathrm{answer\\_consistency} = 1\\,]

    >>> answer_consistency_binary(4, 4), answer_consistency_binary(3, 4)
    (1.0, 0.0)
    """
    if not n_sentences:
        return None
    return 1.0 if n_supported == n_sentences else 0.0


def overall(values: Sequence[float | None], answer_similarity: float | None) -> float | None:
    """Mean of the computed metrics, answer similarity scaled to [0, 1] by dividing by 5.

    .. math:: \\mathrm{overall} = \\mathrm{mean}\\big(\\{m_i \\ne \\mathrm{null}\\} \\cup \\{\\mathrm{sim}/5\\}\\big)

    Notes: ``None`` when nothing was computed.

    >>> overall([0.5, 1.0, None], 4.0)
    0.7666666666666666
    """
    parts = [v for v in values if v is not None]
    if answer_similarity is not None:
        parts.append(answer_similarity / SIMILARITY_MAX)
    return sum(parts) / len(parts) if parts else None


@dataclass(frozen=True)
class TonicScores:
    retrieval_precision: float | None
    augmentation_accuracy: float | None
    augmentation_precision: float | None
    answer_consistency: float | None
    answer_consistency_binary: float | None
    answer_similarity: float | None
    overall: float | None

    def as_dict(self) -> dict[str, float | None]:
        return dict(vars(self))


UNLABELED = TonicScores(None, None, None, None, None, None, None)


def _flags(value: Any, n_documents: int) -> list[bool] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = json.loads(value)
    flags = [bool(v) for v in value]
    if len(flags) != n_documents:
        raise ValueError(f"has {len(flags)} chunk labels but there are {n_documents} documents")
    return flags


def tonic_scores(
    labels: Labels | None,
    n_documents: int,
    response_keys: Sequence[str],
    chunk_relevant: Sequence[bool] | None = None,
    chunk_used: Sequence[bool] | None = None,
    answer_similarity: float | None = None,
) -> TonicScores:
    """All Tonic values of one example; sentence-derived parts are ``None`` when *labels* is ``None``.

    Direct chunk labels win over the sentence-derived ones."""
    if labels is None and chunk_relevant is None and answer_similarity is None:
        return UNLABELED
    relevant = (
        list(chunk_relevant)
        if chunk_relevant is not None
        else (chunk_flags(labels.relevant_keys, n_documents) if labels is not None else None)
    )
    used = (
        list(chunk_used)
        if chunk_used is not None
        else (chunk_flags(labels.utilized_keys, n_documents) if labels is not None else None)
    )
    rp = retrieval_precision(relevant) if relevant is not None else None
    aa = augmentation_accuracy(used) if used is not None else None
    ap = augmentation_precision(relevant, used) if relevant is not None and used is not None else None
    if labels is not None:
        bad = set(unsupported_keys(labels))
        n_supported = sum(1 for k in response_keys if k not in bad)
        ac = answer_consistency(n_supported, len(response_keys))
        acb = answer_consistency_binary(n_supported, len(response_keys))
    else:
        ac = acb = None
    sim = None if answer_similarity is None else float(answer_similarity)
    return TonicScores(rp, aa, ap, ac, acb, sim, overall([rp, aa, ap, ac, acb], sim))


def example_inputs(
    example: Example, labels: Labels | None
) -> tuple[list[bool] | None, list[bool] | None, float | None]:
    """The direct inputs ``(chunk_relevant, chunk_utilized, answer_similarity)`` under *labels*:
    the label set's override when it sets one, else the example's ``extra`` field (``None``: the
    chunk labels are derived from the sentence labels / there is no similarity score)."""
    n_documents = len(example.document_sentences)

    def pick(name: str, override: Any) -> Any:
        return override if override is not None else example.extra.get(name)

    relevant = pick(CHUNK_RELEVANT_FIELD, labels.chunk_relevant if labels is not None else None)
    used = pick(CHUNK_USED_FIELD, labels.chunk_utilized if labels is not None else None)
    similarity = pick(SIMILARITY_FIELD, labels.answer_similarity if labels is not None else None)
    return _flags(relevant, n_documents), _flags(used, n_documents), None if similarity is None else float(similarity)


def example_tonic(example: Example, labels: Labels | None = None) -> TonicScores:
    """Tonic values of *example* under *labels* (default: its own); chunk labels and similarity
    from the label set's overrides when set, else from ``extra`` when present (:func:`example_inputs`)."""
    labels = example.labels if labels is None else labels
    relevant, used, similarity = example_inputs(example, labels)
    return tonic_scores(labels, len(example.document_sentences), example.response_keys(), relevant, used, similarity)


# -- many examples at once (Arrow columns) ------------------------------------------------------------


def _pairs(lists: pa.Array, codes: np.ndarray, width: int) -> np.ndarray:
    """``row * width + code`` of each value of the list array *lists* (codes: one per flat value)."""
    lengths = np.asarray(pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False), np.int64)
    return np.repeat(np.arange(len(lists), dtype=np.int64), lengths) * width + codes


def chunk_counts(
    relevant: pa.Array, used: pa.Array, n_documents: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: how many documents have a relevant key, a used key, and both: :func:`chunk_flags`
    of many rows at once (keys parsed by :func:`ragviz.data.keys.parse_context_key`, once per distinct
    key; keys naming no document of the row are ignored). *relevant* / *used* are list arrays of keys.

    .. math:: |\\mathrm{Rel}|, \\; |\\mathrm{Used}|, \\; |\\mathrm{Rel} \\cap \\mathrm{Used}|
    """
    n = len(n_documents)
    width = int(max(int(np.max(n_documents, initial=0)), 1))
    flat = [pc.list_flatten(relevant), pc.list_flatten(used)]
    joined = pa.concat_arrays([f.cast(pa.string()) for f in flat])
    encoded = cast(pa.DictionaryArray, pc.dictionary_encode(joined))
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), np.int64)
    docs = np.array(
        [-1 if (p := parse_context_key(str(k))) is None else p[0] for k in encoded.dictionary.to_pylist()] or [-1],
        np.int64,
    )[codes]
    out = []
    for lists, part in ((relevant, docs[: len(flat[0])]), (used, docs[len(flat[0]) :])):
        pairs = _pairs(lists, part, width)
        keep = (part >= 0) & (part < n_documents[pairs // width])
        out.append(np.unique(pairs[keep]))
    both = np.intersect1d(out[0], out[1], assume_unique=True)
    return tuple(np.bincount(p // width, minlength=n).astype(np.int64) for p in (out[0], out[1], both))  # type: ignore[return-value]


def supported_counts(response_keys: pa.Array, unsupported: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the response sentences *S* (list array of their keys) and how many of them are not
    among the row's *unsupported* keys (list array), as :func:`tonic_scores` counts them."""
    n = len(response_keys)
    r_flat, u_flat = pc.list_flatten(response_keys), pc.list_flatten(unsupported)
    encoded = cast(
        pa.DictionaryArray, pc.dictionary_encode(pa.concat_arrays([r_flat.cast(pa.string()), u_flat.cast(pa.string())]))
    )
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), np.int64)
    width = len(encoded.dictionary) + 1
    r_pairs = _pairs(response_keys, codes[: len(r_flat)], width)
    bad = np.isin(r_pairs, _pairs(unsupported, codes[len(r_flat) :], width))
    sentences = np.bincount(r_pairs // width, minlength=n).astype(np.int64)
    return sentences, sentences - np.bincount(r_pairs[bad] // width, minlength=n).astype(np.int64)


def tonic_arrays(
    labeled: np.ndarray,
    n_documents: np.ndarray,
    chunks: tuple[np.ndarray, np.ndarray, np.ndarray],
    n_sentences: np.ndarray,
    n_supported: np.ndarray,
    similarity: np.ndarray,
) -> dict[str, np.ndarray]:
    """:data:`TONIC_METRICS` of many examples at once, NaN where :func:`tonic_scores` gives ``None``:
    the formulas of :func:`retrieval_precision`, :func:`augmentation_accuracy`,
    :func:`augmentation_precision`, :func:`answer_consistency`, :func:`answer_consistency_binary`
    and :func:`overall` on per-row counts (*chunks*: :func:`chunk_counts`; *n_sentences*,
    *n_supported*: :func:`supported_counts`; *similarity*: NaN when absent), for rows without direct
    chunk labels (those go through :func:`tonic_scores`). Same floats as :func:`tonic_scores`."""
    rel, used, both = (c.astype(np.float64) for c in chunks)
    docs, sents = n_documents.astype(np.float64), n_sentences.astype(np.float64)
    has_chunks = labeled & (n_documents > 0)
    has_sents = labeled & (n_sentences > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = {
            "retrieval_precision": np.where(has_chunks, rel / docs, np.nan),
            "augmentation_accuracy": np.where(has_chunks, used / docs, np.nan),
            "augmentation_precision": np.where(has_chunks, np.where(rel == 0, 0.0, both / rel), np.nan),
            "answer_consistency": np.where(has_sents, n_supported / sents, np.nan),
            "answer_consistency_binary": np.where(has_sents, (n_supported == n_sentences).astype(np.float64), np.nan),
        }
    total, count = np.zeros(len(labeled)), np.zeros(len(labeled))
    for part in (*values.values(), similarity / SIMILARITY_MAX):
        valid = ~np.isnan(part)
        total, count = total + np.where(valid, part, 0.0), count + valid
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(count > 0, total / count, np.nan)
    return {**values, "answer_similarity": similarity.astype(np.float64), "overall": mean}


def _row_flags(row: Mapping[str, Any], name: str, n_documents: int, index: int) -> list[bool] | None:
    try:
        return _flags(row.get(name), n_documents)
    except ValueError as exc:
        raise ValueError(f"{row.get('_path', '')}:{row.get('_row', index + 1)}: {name}: {exc}") from None


ROW_COLUMNS = ("id", "response_sentences", CHUNK_RELEVANT_FIELD, CHUNK_USED_FIELD, SIMILARITY_FIELD, "_path", "_row")


def family_records(
    rows: Iterable[Mapping[str, Any]],
    n_documents: Sequence[int],
    datasets: Sequence[str] | None = None,
) -> Iterator[dict]:
    """One record per row with ``id``, ``dataset`` and :data:`TONIC_METRICS`.

    *rows* need the label fields, ``response_sentences`` and the optional direct fields;
    *n_documents* is the per-row document count (columnar, so the documents' text is never read).
    A malformed direct chunk label list raises ``ValueError`` as ``PATH:ROW: field: problem`` (from
    the ``_path``/``_row`` bookkeeping columns when the rows carry them).
    """
    from ragviz.data.dotted_keys import match_response_keys
    from ragviz.data.ragbench import labels_from_row

    for i, row in enumerate(rows):
        ident = "" if row.get("id") is None else str(row["id"])
        relevant = used = None
        if row.get(CHUNK_RELEVANT_FIELD) is not None or row.get(CHUNK_USED_FIELD) is not None:
            relevant, used = (
                _row_flags(row, name, n_documents[i], i) for name in (CHUNK_RELEVANT_FIELD, CHUNK_USED_FIELD)
            )
        response_keys = [str(pair[0]) for pair in row.get("response_sentences") or ()]
        scores = tonic_scores(
            match_response_keys(labels_from_row(row), set(response_keys)),  # "a." is sentence "a", as loaded
            n_documents[i],
            response_keys,
            relevant,
            used,
            row.get(SIMILARITY_FIELD),
        )
        yield {
            "id": ident,
            "dataset": datasets[i] if datasets is not None else str(row.get("dataset_name") or ""),
            **scores.as_dict(),
        }
