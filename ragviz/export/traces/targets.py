"""One call for the app's "Push to Phoenix / Langfuse": the request's target, its keys only for this call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragviz.analysis.labelsets.selection import LabelSelection, Whose
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.export.traces.push import PushReport, push_phoenix
from ragviz.store.label_store import LabelStore

__all__ = ["push_labels"]


def push_labels(
    dataset: Dataset,
    store: LabelStore,
    whose: Whose,
    request: Any,
    progress: Callable[[int, int], None],
) -> PushReport:
    """Push *whose* labels of the reviewed examples as *request* says (``target``, ``url``, ``api_key``,
    ``documents_kind``, ``public_key``, ``secret_key``); BadInput on a failure, and for a judge version's labels
    (a push sends people's labels)."""
    if isinstance(whose, LabelSelection) and whose.kind == "version":
        raise BadInput(f"a push sends people's labels, not {whose.name}'s: pick yours or the team's")
    if request.target == "langfuse":
        from ragviz.export.traces.langfuse import langfuse_api
        from ragviz.export.traces.langfuse_push import push_langfuse

        api = langfuse_api(request.url, request.public_key, request.secret_key)
        return push_langfuse(dataset, store, request.url, whose, api, progress)
    return push_phoenix(dataset, store, request.url, whose, request.api_key, request.documents_kind, progress)
