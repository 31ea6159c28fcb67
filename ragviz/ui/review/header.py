"""The Review page's header (where the page is, the question, the TRACe cards, the flags, the legend and the
"Response" heading) as a tree the response editor's script builds node by node (issue 38): one element less to redraw
on every J than an ``st.html`` block, and no HTML sanitizer pass over it in the browser.

The header is written as HTML by the page's renderers (every text from data escaped there); :func:`markup_tree` reads
that markup back into ``[tag, {attribute: value}, child, ...]`` lists and strings, keeping only the tags and
attributes in :data:`TAGS` / :func:`allowed_attribute`. The editor's script (``sentence_editor/editor.js``) builds the
nodes with ``createElement``, ``setAttribute`` and ``createTextNode`` under the same allowlist: no text is ever parsed
as HTML in the browser. :func:`tree_html` writes a tree back as HTML (what the tests read).
"""

from __future__ import annotations

import html
from html.parser import HTMLParser
from typing import Any

__all__ = ["TAGS", "VOID", "allowed_attribute", "markup_tree", "tree_html"]

#: The tags a header tree may hold (the editor's script builds no other).
TAGS = frozenset({"b", "br", "details", "div", "i", "kbd", "li", "p", "span", "strong", "summary", "ul"})
VOID = frozenset({"br"})  # no closing tag, no children


def allowed_attribute(name: str) -> bool:
    """Whether a header tree keeps the attribute *name*: presentation and accessibility only (no event handler, no
    link, no source)."""
    return name in ("class", "style", "title", "role", "open") or name.startswith(("aria-", "data-"))


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: list[Any] = ["div", {}]
        self.open: list[list[Any]] = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in TAGS:
            raise ValueError(f"the header holds a <{tag}>, which its tree does not draw")
        node: list[Any] = [tag, {k: v or "" for k, v in attrs if allowed_attribute(k)}]
        self.open[-1].append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if len(self.open) < 2 or self.open[-1][0] != tag:
            raise ValueError(f"the header's </{tag}> closes nothing open")
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.open[-1].append(data)


def markup_tree(markup: str) -> list[Any]:
    """*markup* (ragviz's own HTML, texts from data escaped) as one ``div``'s tree: elements as ``[tag, attributes,
    *children]``, texts as strings (entities decoded: the script shows them as text).

    >>> markup_tree('<b class="x">1 &lt; 2</b><br>')
    ['div', {}, ['b', {'class': 'x'}, '1 < 2'], ['br', {}]]
    """
    reader = _Reader()
    reader.feed(markup)
    reader.close()
    if len(reader.open) != 1:
        raise ValueError(f"the header leaves <{reader.open[-1][0]}> open")
    return reader.root


def tree_html(node: Any) -> str:
    """A tree of :func:`markup_tree` as HTML again (texts and attribute values escaped).

    >>> tree_html(markup_tree('<p title="a&quot;b">x &amp; y<br></p>'))
    '<div><p title="a&quot;b">x &amp; y<br></p></div>'
    """
    if isinstance(node, str):
        return html.escape(node, quote=True)  # as the renderers escape (render.esc)
    tag, attrs, *children = node
    opened = "".join(f' {k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())
    if tag in VOID:
        return f"<{tag}{opened}>"
    return f"<{tag}{opened}>{''.join(tree_html(c) for c in children)}</{tag}>"
