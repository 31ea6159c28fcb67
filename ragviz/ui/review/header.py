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

import functools
import html
import re
from html.parser import HTMLParser
from typing import Any

__all__ = ["TAGS", "VOID", "allowed_attribute", "header_tree", "markup_tree", "tree_html"]

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
    *children]``, texts as strings (entities decoded: the script shows them as text). Read by :func:`_quick_tree`
    when it can (the renderers' markup: lower-case tags, double-quoted attributes), else by ``html.parser``: the
    same tree either way, at a third of the cost (a J reads its header's ~5 KB, issue 38).

    >>> markup_tree('<b class="x">1 &lt; 2</b><br>')
    ['div', {}, ['b', {'class': 'x'}, '1 < 2'], ['br', {}]]
    """
    quick = _quick_tree(markup)
    if quick is not None:
        return quick
    reader = _Reader()
    reader.feed(markup)
    reader.close()
    if len(reader.open) != 1:
        raise ValueError(f"the header leaves <{reader.open[-1][0]}> open")
    return reader.root


# a start tag (lower-case name, attributes with a double-quoted value or none), an end tag, or a text
_TOKEN = re.compile(r'<(/?)([a-z]+)((?:\s+[a-zA-Z][\w:-]*(?:="[^"<>]*")?)*)\s*(/?)>|([^<]+)')
_ATTRIBUTE = re.compile(r'([a-zA-Z][\w:-]*)(?:="([^"]*)")?')


def _quick_tree(markup: str) -> list[Any] | None:
    """*markup*'s tree as :class:`_Reader` reads it, by one regular expression; ``None`` where it meets anything
    else (a comment, a quote of another kind, a tag it does not draw, a tag closed out of order, one left open):
    ``html.parser`` then reads it and says what is wrong."""
    root: list[Any] = ["div", {}]
    open_ = [root]
    at = 0
    unescape = html.unescape
    for m in _TOKEN.finditer(markup):
        if m.start() != at:
            return None
        at = m.end()
        closing, tag, attributes, closed, text = m.groups()
        if text is not None:
            open_[-1].append(unescape(text) if "&" in text else text)
        elif tag not in TAGS:
            return None
        elif closing:
            if tag in VOID:
                continue
            if len(open_) < 2 or open_[-1][0] != tag:
                return None
            open_.pop()
        else:
            node: list[Any] = [tag, {}]
            if attributes:
                for name, value in _ATTRIBUTE.findall(attributes):
                    if allowed_attribute(name := name.lower()):
                        node[1][name] = unescape(value)
            open_[-1].append(node)
            if tag not in VOID and not closed:
                open_.append(node)
    return root if at == len(markup) and len(open_) == 1 else None


@functools.lru_cache(maxsize=64)
def _block(markup: str) -> tuple[Any, ...]:
    return tuple(markup_tree(markup)[2:])


def header_tree(*blocks: str) -> list[Any]:
    """The HTML *blocks* in order as one ``div``'s tree (:func:`markup_tree`); a block seen lately is not read again
    (the legend and the heading are the same on every example: half the header's markup).

    >>> header_tree("<b>1</b>", "<i>2</i>")
    ['div', {}, ['b', {}, '1'], ['i', {}, '2']]
    """
    return ["div", {}, *(child for block in blocks for child in _block(block))]


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
