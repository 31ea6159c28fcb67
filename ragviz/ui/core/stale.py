"""What the app says about an edit the store refused (:class:`~ragviz.store.errors.StaleEdit`): as Markdown for a
page's warning, as plain text for the Review page's text editor (under the sentence clicked)."""

from __future__ import annotations

import json

from ragviz.store.errors import StaleEdit

__all__ = ["stale_message", "stale_text"]


def stale_message(exc: StaleEdit) -> str:
    """What the app says about a refused edit: which fields changed and their newer values."""
    fields = "; ".join(
        f"**{_md_safe(c.field)}** is now {_md_safe(json.dumps(c.stored, ensure_ascii=False))}"
        f" (you saw {_md_safe(json.dumps(c.seen, ensure_ascii=False))})"
        for c in exc.conflicts
    )
    return (
        "Not saved: these labels were changed since this page drew them (another tab or window of"
        f" {_md_safe(exc.annotator)}?). {fields}. The page now shows the newer labels; redo the edit if you still want it."
    )


def stale_text(exc: StaleEdit) -> str:
    """:func:`stale_message` as plain text (the Review page's text editor shows it under the sentence clicked)."""
    fields = "; ".join(
        f"{c.field} is now {json.dumps(c.stored, ensure_ascii=False)} (you saw {json.dumps(c.seen, ensure_ascii=False)})"
        for c in exc.conflicts
    )
    return (
        f"Not saved: these labels were changed since this page drew them (another tab or window of {exc.annotator}?)."
        f" {fields}. The sentence shows the stored labels now; redo the edit if you still want it."
    )


def _md_safe(text: str) -> str:
    """Text for a Markdown caption with every Markdown/HTML-active character escaped."""
    out = []
    for ch in text:
        out.append("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>~$" else ch)
    return "".join(out)
