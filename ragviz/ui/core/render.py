"""HTML for the Review page: the ONE place that turns data spans into markup, and it escapes every text.

Functions here return strings (no Streamlit calls) so they are unit-tested directly; the page passes
them to ``st.html``. Colours are the Okabe–Ito colour-blind-safe palette, defined here once for every
page and readable in the light and the dark theme alike, and every state also carries a text marker
(``R``, ``U``, ``R+U``, ``✓``, ``✗``, ``?``) so nothing depends on colour alone.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

from ragviz.analysis.review.edits import (
    BOTH,
    NEITHER,
    RELEVANT,
    SUPPORTED,
    UNDECIDED,
    UNSUPPORTED,
    UTILIZED,
    ContextSpan,
    ResponseSpan,
)
from ragviz.data.limits import DOCUMENT_SHOWN_CHARS, SHOWN_CHARS, WHOLE_CHARS, cut

__all__ = [
    "CHIP",
    "CONTEXT_STYLE",
    "GREEN",
    "GREY",
    "INK",
    "KEY_CHIP",
    "LINK_COLOR",
    "MD_SHOWN",
    "MUTED",
    "NUMBER_WIDTH",
    "ORANGE",
    "PINK",
    "SKY",
    "SUPPORT_STYLE",
    "Span",
    "VERMILION",
    "chip_style",
    "context_sentence_html",
    "cut_note_html",
    "document_html",
    "esc",
    "format_delta",
    "format_score",
    "legend_html",
    "long_text_html",
    "md_escape",
    "problems_html",
    "response_html",
    "table_text",
    "text_block_html",
    "theme_css",
    "within_budget",
]

#: The width (px) of a number field standing alone on a page: its − / + stay beside the number (full width, at 1,920 px
#: they sat 1,100 px from it).
NUMBER_WIDTH = 240


# The colours, defined once for every page (Review, Explainer, Claims, Label, Dashboard triage). They
# read in the light and the dark theme alike without knowing which is on (Streamlit reports the theme to
# Python only after the first run): highlights are translucent tints over the page's own background
# with the page's own text colour; chips are solid with a text colour chosen for that chip; boxes
# have a translucent border and no background of their own. Supported is green, unsupported red.
GREEN, SKY, ORANGE, VERMILION, PINK, GREY = "#009E73", "#56B4E9", "#E69F00", "#D55E00", "#CC79A7", "#8c959f"
INK = "#1f2328"  # text on a light chip
# secondary text, either theme: 75 % of the text colour keeps WCAG AA's 4.5:1 on Streamlit's backgrounds (the sidebar's
# #f0f2f6 included; 68 % gave 4.4:1 there, Streamlit's own grey #808495 3.5:1)
MUTED = "color:color-mix(in srgb, currentColor 75%, transparent)"


def _tint(hex_color: str, alpha: float) -> str:
    r, g, b = (int(hex_color[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


# state -> (highlight background, border and chip colour, marker, legend text)
CONTEXT_STYLE = {
    BOTH: (_tint(GREEN, 0.26), GREEN, "R+U", "relevant and utilized"),
    RELEVANT: (_tint(SKY, 0.30), SKY, "R", "relevant, not utilized"),
    UTILIZED: (_tint(ORANGE, 0.30), ORANGE, "U", "utilized, not relevant"),
    NEITHER: ("transparent", GREY, "·", "neither"),
}
SUPPORT_STYLE = {
    SUPPORTED: (_tint(GREEN, 0.22), GREEN, "✓", "supported"),
    UNSUPPORTED: (_tint(VERMILION, 0.22), VERMILION, "✗", "unsupported"),
    UNDECIDED: (_tint(GREY, 0.22), GREY, "?", "undecided"),
}
# chip colour -> (its background, its text): green and vermilion chips take a darker shade of the same hue
# so white text on them reaches 4.5:1 (WCAG AA); the light ones take dark text
CHIP = {
    GREEN: ("#007A5A", "#fff"),
    VERMILION: ("#B34400", "#fff"),
    SKY: (SKY, INK),
    ORANGE: (ORANGE, INK),
    GREY: (GREY, INK),
    PINK: (PINK, INK),
}
LINK_COLOR = PINK

_BOX = (
    "font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:0.95rem;line-height:1.9;"
    "border:1px solid rgba(140,149,159,0.45);border-radius:8px;padding:10px 12px;margin:0 0 10px 0;"
    "background:rgba(140,149,159,0.06)"
)
# a key chip's shape, the same wherever a sentence key is shown (Review, Explainer)
KEY_CHIP = (
    "display:inline-block;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:0.78rem;"
    "font-weight:600;border-radius:4px;padding:0 4px;margin-right:4px;line-height:1.5;vertical-align:baseline"
)


def chip_style(color: str) -> str:
    """A key chip in *color* (one of the palette's colours) with a text colour readable on it."""
    background, text = CHIP.get(color, (color, "#fff"))
    return f"{KEY_CHIP};background:{background};color:{text}"


def theme_css() -> str:
    """A ``<style>`` block for the whole app: the Dashboard's triage links wrap their whole text (Streamlit cuts a
    link label with "…"), and a link in a caption keeps WCAG AA's contrast. (The Review page's verdict is green /
    vermilion when chosen by its own styles, ``ragviz/ui/review/sentence_editor/editor.css``.)"""
    return (
        '<style data-rv="colours">'
        '.st-key-dashboard-triage [data-testid="stPageLink"] *'
        "{white-space:normal!important;overflow:visible!important;text-overflow:clip!important;height:auto}"
        # a chosen segment of a segmented control: Streamlit writes it in the primary colour on that colour's
        # tint (4.47:1 light, 3.6:1 dark); in the text colour, its border and tint still say it is chosen
        '[data-testid="stButtonGroup"] button[data-selected="true"]{color:inherit!important}'
        # a link in a caption: Streamlit fades the link colour as the caption's (3:1 on white); underlined, it
        # may take the caption's own colour, which meets WCAG AA
        '[data-testid="stCaptionContainer"] a{color:inherit!important;text-decoration:underline}'
        # the answer of a paired question that the documents and the page's keys act on
        f".st-key-review-answer-focused{{outline:2px solid {SKY};outline-offset:-1px}}"
        # a paired answer's four scores: in a row, or two by two where its column is narrow
        ".rv-metric-strip{grid-template-columns:repeat(4,minmax(0,1fr))}"
        "@container rv-strip (max-width: 28rem){.rv-metric-strip{grid-template-columns:repeat(2,minmax(0,1fr))}}"
        "</style>"
    )


def esc(text: object) -> str:
    """HTML-escape any text from data or an LLM (quotes included)."""
    return html.escape(str(text), quote=True)


MD_SHOWN = 300  # characters of a dynamic text shown in a Markdown element before "…"
_MD_ACTIVE = set("\\`*_{}[]()#+-.!|<>~$:=^&\"'")


def md_escape(text: object, limit: int | None = MD_SHOWN) -> str:
    r"""Any text from data, a person or an LLM, for a Markdown-rendering element (``st.caption``,
    ``st.warning``, tab and metric labels, ...): every Markdown / LaTeX / HTML-active character
    backslash-escaped, line breaks made spaces, and cut to *limit* characters with ``…`` (``None``: whole).

    >>> print(md_escape("**x** $x$"))
    \*\*x\*\* \$x\$
    >>> md_escape("ana@x.org")  # no mailto: link
    'ana@\u2060x\\.org'
    """
    s = " ".join(str(text).split())
    if limit is not None and len(s) > limit:
        s = s[: limit - 1] + "…"
    # an e-mail address stays text: a word joiner after its @ keeps Markdown from making it a mailto: link
    return "".join("\\" + ch if ch in _MD_ACTIVE else "@\u2060" if ch == "@" else ch for ch in s)


def long_text_html(text: object, limit: int = SHOWN_CHARS) -> str:
    """*text* escaped; past *limit* characters cut, with a "show all" disclosure holding it whole (up
    to :data:`~ragviz.data.limits.WHOLE_CHARS` characters) for whoever wants to read it."""
    s = str(text)
    shown, was_cut = cut(s, limit)
    if not was_cut:
        return esc(s)
    whole, _ = cut(s, WHOLE_CHARS)
    return (
        f'<span class="rv-cut">{esc(shown)}</span> <details class="rv-show-all" style="display:inline">'
        f'<summary style="display:inline;cursor:pointer;color:#0969da">show all ({len(s):,} characters)</summary>'
        f'<div style="white-space:pre-wrap;overflow-wrap:anywhere;max-height:320px;overflow:auto">{esc(whole)}</div>'
        "</details>"
    )


def table_text(text: object, limit: int = SHOWN_CHARS) -> str:
    """A text for a table cell, cut to *limit* characters (the whole text is drawn above the table)."""
    return cut(str(text), limit)[0]


Span = TypeVar("Span", ContextSpan, ResponseSpan)


def within_budget(spans: Sequence[Span], budget: int = DOCUMENT_SHOWN_CHARS) -> tuple[list[Span], int]:
    """The spans whose text fits in *budget* characters (the one crossing it cut), and how many
    characters were left out: a document over 1 MB is cut for display, never sent whole."""
    kept: list[Span] = []
    used = 0
    total = sum(len(s.text) for s in spans)
    for s in spans:
        if used >= budget:
            break
        text = s.text if used + len(s.text) <= budget else cut(s.text, budget - used)[0]
        kept.append(s if text is s.text else replace(s, text=text))
        used += len(text)
    return kept, max(0, total - sum(len(s.text) for s in kept))


def cut_note_html(left_out: int) -> str:
    """The note after a text cut for display: how many characters were left out (empty when none)."""
    return _cut_note(left_out)


def _cut_note(left_out: int) -> str:
    if not left_out:
        return ""
    return (
        f' <span class="rv-doc-cut" style="color:#8a6100;font-style:italic">… {left_out:,} more characters not shown'
        f" (over {DOCUMENT_SHOWN_CHARS // 1_000_000} MB: cut for display; the labels and exports keep everything)</span>"
    )


def _sentence_style(bg: str, border: str, linked: bool) -> str:
    style = f"background:{bg};border-bottom:2px solid {border};border-radius:3px;padding:1px 2px;"
    if linked:
        style += f"outline:3px solid {LINK_COLOR};outline-offset:1px;"
    return style


def context_sentence_html(span: ContextSpan) -> str:
    bg, border, marker, label = CONTEXT_STYLE[span.state]
    link_note = " — supports the selected response sentence" if span.linked else ""
    link_tag = f'<span style="{chip_style(LINK_COLOR)}">◆ support</span>' if span.linked else ""
    return (
        f'<span class="rv-sent rv-{span.state}{" rv-linked" if span.linked else ""}" data-key="{esc(span.key)}" '
        f'title="{esc(span.key)}: {label}{link_note}" style="{_sentence_style(bg, border, span.linked)}">'
        f'<span class="rv-key" style="{chip_style(border)}">'
        f"{esc(span.key)} {marker}</span>{link_tag}{esc(span.text)}</span>"
    )


def document_html(doc_index: int, spans: Sequence[ContextSpan], title: str | None = None) -> str:
    """One document as one block: every sentence with its key, state colour and marker."""
    heading = esc(title) if title is not None else f"Document {doc_index}"
    spans, left_out = within_budget(spans)
    body = " ".join(context_sentence_html(s) for s in spans) or f'<span style="{MUTED}">(no sentences)</span>'
    body += _cut_note(left_out)
    return (
        f'<div class="rv-doc" data-doc="{doc_index}" style="{_BOX}">'
        f'<div style="font-weight:600;font-size:0.85rem;{MUTED};margin-bottom:4px">{heading}</div>{body}</div>'
    )


def response_html(spans: Sequence[ResponseSpan]) -> str:
    """The response, sentence by sentence, with support status; the selected sentence is outlined."""
    parts = []
    spans, left_out = within_budget(spans)
    for s in spans:
        bg, border, marker, label = SUPPORT_STYLE[s.status]
        style = _sentence_style(bg, border, s.selected)
        keys = ", ".join(s.supporting_keys) or "none"
        parts.append(
            f'<span class="rv-resp rv-{s.status}{" rv-selected" if s.selected else ""}" data-key="{esc(s.key)}" '
            f'title="{esc(s.key)}: {label}; supporting keys: {esc(keys)}" style="{style}">'
            f'<span class="rv-key" style="{chip_style(border)}">{esc(s.key)} {marker}</span>'
            f"{esc(s.text)}</span>"
        )
    body = " ".join(parts) or f'<span style="{MUTED}">(empty response)</span>'
    body += _cut_note(left_out)
    return f'<div class="rv-response" style="{_BOX}">{body}</div>'


def text_block_html(label: str, text: str) -> str:
    """A labelled block of plain data text (question, explanation), escaped."""
    return (
        f'<div style="{_BOX}"><div style="font-weight:600;font-size:0.85rem;{MUTED}">{esc(label)}</div>'
        f'<div style="white-space:pre-wrap">{esc(cut(text, DOCUMENT_SHOWN_CHARS)[0])}{_cut_note(max(0, len(text) - DOCUMENT_SHOWN_CHARS))}</div></div>'
    )


def legend_html() -> str:
    """Legend for the context colours, the support colours and the support-link outline."""
    items = []
    for style in (*CONTEXT_STYLE.values(), *SUPPORT_STYLE.values()):
        bg, border, marker, label = style
        items.append(
            f'<span style="margin-right:12px;white-space:nowrap"><span style="{chip_style(border)}">{marker}</span>'
            f'<span style="background:{bg};border-bottom:2px solid {border};padding:0 4px">{label}</span></span>'
        )
    items.append(
        f'<span style="white-space:nowrap"><span style="{chip_style(LINK_COLOR)}">◆ support</span>'
        f'<span style="outline:3px solid {LINK_COLOR};padding:0 4px">supports the selected response sentence</span></span>'
    )
    return f'<div class="rv-legend" style="font-family:system-ui,sans-serif;font-size:0.8rem;line-height:2">{"".join(items)}</div>'


def problems_html(lines: Iterable[str], kind: str = "warning", prose: bool = False) -> str:
    """A list of problem lines (``PATH:ROW: field: problem``), escaped, in a monospace block; *prose*:
    sentences for a reader (the estimates' notes), in the page's own font."""
    color = {"error": VERMILION, "warning": ORANGE}.get(kind, GREY)
    rows = "".join(f"<li>{esc(line)}</li>" for line in lines)
    font = "font-size:0.9rem;line-height:1.5" if prose else "font-family:ui-monospace,monospace;font-size:0.8rem"
    return (
        f'<ul class="rv-problems rv-{kind}" style="{font};'
        f'border-left:3px solid {color};margin:0;padding-left:1.6em">{rows}</ul>'
    )


def format_score(value: float | None) -> str:
    """``0.667`` style, ``—`` when undefined."""
    return "—" if value is None else f"{value:.3f}"


def format_delta(value: float | None) -> str | None:
    """Signed delta for ``st.metric`` (``None`` when there is nothing to show)."""
    if value is None or abs(value) < 1e-12:
        return None
    return f"{value:+.3f}"
