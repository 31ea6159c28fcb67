"""Response-sentence keys a judge wrote with a trailing dot (``"a."`` for sentence ``"a"``), matched to their
sentence: one rule (:func:`dotted_key_match`) for a label set (:func:`match_response_keys`), for a row's RAGBench
fields (:func:`ragviz.data.ragbench.match_row_keys`) and for what ``ragviz validate`` counts."""

from __future__ import annotations

from collections.abc import Collection

from ragviz.data.model import Labels, SentenceSupport

__all__ = ["dotted_key_match", "dotted_response_keys", "match_response_keys"]


def dotted_key_match(key: str, response_keys: Collection[str], keyed: Collection[str]) -> str | None:
    """The response sentence a key written with a trailing dot names (``"a."`` -> ``"a"``), ``None``
    when *key* has no trailing dot, is itself a key of *response_keys*, or its undotted form names no
    response sentence or is already in *keyed* (the label set has an entry for it).

    >>> dotted_key_match("a.", {"a", "b"}, set()), dotted_key_match("a", {"a"}, set())
    ('a', None)
    >>> dotted_key_match("a.", {"a"}, {"a"}), dotted_key_match("z.", {"a"}, set())
    (None, None)
    """
    if not key.endswith(".") or key in response_keys:
        return None
    bare = key.rstrip(".").strip()
    return bare if bare in response_keys and bare not in keyed else None


def match_response_keys(labels: Labels | None, response_keys: Collection[str]) -> Labels | None:
    """*labels* with the response-sentence keys a judge wrote with a trailing dot matched to their
    sentence (:func:`dotted_key_match`): each support entry's ``response_sentence_key`` and each key
    of the unsupported list. Counts are unchanged (one key for one key), so every metric is the one
    the row's stored scores give; the Review page then shows the judge's verdict on sentence ``a``
    and an edit of ``a`` changes that one entry. The same object when nothing is matched."""
    if labels is None:
        return None
    keyed = {s.key for s in labels.support}
    support = []
    for s in labels.support:
        bare = dotted_key_match(s.key, response_keys, keyed)
        if bare is not None:
            keyed.add(bare)
            s = SentenceSupport(bare, s.supported, s.supporting_keys, s.explanation)
        support.append(s)
    unsupported = labels.unsupported_keys
    if unsupported is not None:
        listed = set(unsupported)
        unsupported = tuple(dotted_key_match(k, response_keys, listed) or k for k in unsupported)
    if tuple(support) == labels.support and unsupported == labels.unsupported_keys:
        return labels
    return labels.replace(support=tuple(support), unsupported_keys=unsupported)


def dotted_response_keys(labels: Labels | None, response_keys: Collection[str]) -> int:
    """How many response-sentence keys of *labels* :func:`match_response_keys` matches (what
    ``ragviz validate`` reports)."""
    matched = match_response_keys(labels, response_keys)
    if labels is None or matched is None or matched is labels:
        return 0
    support = sum(a.key != b.key for a, b in zip(labels.support, matched.support))
    listed = zip(labels.unsupported_keys or (), matched.unsupported_keys or ())
    return support + sum(a != b for a, b in listed)
