"""The Explainer's markup as strings: each TRACe formula filled with the sentences it counts, the relevant /
utilized Venn, and the other families' explanations. Every text from data is escaped here (:func:`ragviz.ui.core.render.esc`)."""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable

from ragviz.analysis.explain import (
    AnswerExplanation,
    Filled,
    RetrievalExplanation,
    TonicExplanation,
)
from ragviz.analysis.trace_formulas import FormulaTerm, filled_formula
from ragviz.analysis.trace_formulas import formula_terms as formula_terms  # the Explainer page takes it from here
from ragviz.data.keys import clean_key, is_response_key, letters_index, parse_context_key
from ragviz.data.model import Example, Labels
from ragviz.ui.core.render import (
    GREEN,
    GREY,
    INK,
    KEY_CHIP,
    MUTED,
    ORANGE,
    SKY,
    VERMILION,
    chip_style,
    esc,
    format_score,
)

__all__ = [
    "BAD_COLOR",
    "DEN_COLOR",
    "FormulaTerm",
    "NO",
    "NUM_COLOR",
    "RELEVANT_COLOR",
    "UTILIZED_COLOR",
    "YES",
    "answer_html",
    "delta_html",
    "filled_html",
    "formula_html",
    "formula_terms",
    "retrieval_html",
    "tonic_html",
    "venn_html",
    "venn_img",
    "venn_svg",
]


NUM_COLOR, DEN_COLOR, BAD_COLOR = GREEN, SKY, VERMILION
RELEVANT_COLOR, UTILIZED_COLOR = SKY, ORANGE
YES, NO = "✓", "✗"

_BOX = (
    "font-family:system-ui,-apple-system,'Segoe UI',sans-serif;border:1px solid rgba(140,149,159,0.45);"
    "border-radius:8px;padding:10px 12px;margin:0 0 10px 0;background:rgba(140,149,159,0.06)"
)


def _keys_html(keys: tuple[str, ...], color: str, limit: int = 60) -> str:
    """*keys* as chips in document order (a person's list is in the order they clicked)."""
    if not keys:
        return f'<span style="{MUTED}">none</span>'
    keys = tuple(_in_document_order(keys))
    shown = "".join(f'<span style="{chip_style(color)}">{esc(k)}</span>' for k in keys[:limit])
    more = f' <span style="{MUTED}">… and {len(keys) - limit} more</span>' if len(keys) > limit else ""
    return shown + more


def formula_html(term: FormulaTerm) -> str:
    """One metric as a card: ``relevance = |R| / N = 4 / 12 = 0.333`` and the keys behind it; adherence's rule is
    followed by a colon (``... else 1: 0 unsupported of 15 → 1.000``: "else 1 = 0 unsupported" read as 1 = 0)."""
    filled = filled_formula(term, format_score(term.value))
    top_label, top_color = ("unsupported", BAD_COLOR) if term.metric == "adherence" else ("numerator", NUM_COLOR)
    then = ":" if term.metric == "adherence" else " ="
    return (
        f'<div class="rv-formula-card" data-metric="{esc(term.metric)}" style="{_BOX}">'
        f'<div style="font-size:1.05rem"><b>{esc(term.metric)}</b> = {esc(term.formula)}{then} '
        f'<span style="font-size:1.2rem;font-weight:700">{esc(filled)}</span></div>'
        f'<div style="font-size:0.8rem;{MUTED};margin:2px 0 6px 0">{esc(term.note)}</div>'
        f'<div style="font-size:0.85rem"><b>{top_label}</b> ({len(term.numerator)}): {_keys_html(term.numerator, top_color)}</div>'
        f'<div style="font-size:0.85rem"><b>denominator</b> ({len(term.denominator)}): {_keys_html(term.denominator, DEN_COLOR)}</div>'
        "</div>"
    )


#: The Venn's circles: radius, the centres' x, their shared y. Each side's part outside the other circle is 90 px
#: wide at every height (its centre moves with the arcs); the middle lens narrows away from the centre line.
VENN_R, VENN_CX, VENN_CY = 85, (135, 225), 115
KEY_CHAR_PX = 6.8  # one character of the 11 px monospace the keys are set in (6.6 px), and a little room
_MARGIN, _FIRST_KEY_Y, _KEY_LINE, _LOWEST_BASELINE = 6, 118, 14, 185


def _half_chord(y: float) -> float:
    return math.sqrt(max(VENN_R**2 - (y - VENN_CY) ** 2, 0.0))


def _line_room(y: float, side: str) -> tuple[float, int]:
    """Where a line of keys with baseline *y* is centred in its region, and how many characters fit it."""
    far = max(abs(y - 9 - VENN_CY), abs(y + 3 - VENN_CY))  # the line's ink: 9 px above its baseline, 3 below
    if side == "middle":
        x, width = 180.0, 2 * _half_chord(VENN_CY + far) - (VENN_CX[1] - VENN_CX[0]) - _MARGIN
    else:
        h = _half_chord(y - 4)
        x, width = (180 - h if side == "left" else 180 + h), VENN_CX[1] - VENN_CX[0] - _MARGIN
    return round(x, 1), int(max(width, 0.0) // KEY_CHAR_PX)


def venn_key_lines(keys: list[str], side: str) -> list[tuple[float, float, str]]:
    """Where the keys of one Venn region go: ``(x, y, text)`` per line (text centred on x, baseline y), each line
    as many keys as fit the region at that height (*side*: ``left``, ``middle`` or ``right``); where they run out
    of room the last line says ``+N more``."""
    out: list[tuple[float, float, str]] = []
    left, y = list(keys), float(_FIRST_KEY_Y)
    more = len(f"+{len(keys)} more")
    while left:
        x, fits = _line_room(y, side)
        below = y + _KEY_LINE
        last = below > _LOWEST_BASELINE or _line_room(below, side)[1] < more  # no room below for "+N more"
        row: list[str] = []
        while left and len(" ".join([*row, left[0]])) <= fits:
            row.append(left.pop(0))
        if not row or (last and left):  # the last line, and keys still left: it says how many
            out.append((x, y, f"+{len(row) + len(left)} more"))
            break
        out.append((x, y, " ".join(row)))
        y = below
    return out


def _in_document_order(keys: Iterable[str]) -> list[str]:
    """*keys* as the texts hold them: context keys by document, then sentence (``2a 2d 2aa``, not ``2a 2aa 2d``),
    then response keys (``a .. z aa``); a key that names no sentence last, alphabetically. Repeats stay.

    >>> _in_document_order(["2aa", "2d", "10a", "2a", "general", "aa", "b", "2d"])
    ['2a', '2d', '2d', '2aa', '10a', 'b', 'aa', 'general']
    """

    def place(key: str) -> tuple[int, int, int, str]:
        if (context := parse_context_key(key)) is not None:
            return (0, *context, "")
        return (1, letters_index(key), 0, "") if is_response_key(key) else (2, 0, 0, key)

    return sorted(keys, key=place)


def venn_svg(relevant: set[str], utilized: set[str], n_total: int, title: str = "") -> str:
    """Two-circle Venn diagram of the relevant and utilized key sets (keys listed inside each
    region in document order, counts always shown); the sentences in neither set are counted outside."""
    r_only = _in_document_order(relevant - utilized)
    both = _in_document_order(relevant & utilized)
    u_only = _in_document_order(utilized - relevant)
    neither = max(n_total - len(relevant | utilized), 0)

    def region(keys: list[str], side: str) -> str:
        x = {"left": 180 - _half_chord(93), "middle": 180.0, "right": 180 + _half_chord(93)}[side]
        lines = [f'<text x="{x:.1f}" y="98" text-anchor="middle" font-size="20" font-weight="700">{len(keys)}</text>']
        for kx, ky, text in venn_key_lines(keys, side):
            lines.append(
                f'<text x="{kx}" y="{ky}" text-anchor="middle" font-size="11" font-family="monospace">{esc(text)}</text>'
            )
        return "".join(lines)

    heading = (
        f'<text x="180" y="18" text-anchor="middle" font-size="13" font-weight="600">{esc(title)}</text>'
        if title
        else ""
    )
    return (
        '<svg class="rv-venn" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 230" width="360" height="230" '
        f'font-family="system-ui,sans-serif" fill="{INK}" role="img" '
        'aria-label="Venn diagram of relevant and utilized sentences">'
        # An <img> cannot inherit the page's colours: it follows the browser's colour scheme, which is
        # Streamlit's theme unless a person picked another one in its settings.
        "<style>@media (prefers-color-scheme: dark){svg{fill:#fafafa}.rv-card{fill:#262730}.rv-muted{fill:#a3a8b8}}</style>"
        '<rect class="rv-card" width="360" height="230" rx="8" fill="#ffffff"/>'
        f"{heading}"
        f'<circle cx="135" cy="115" r="85" fill="{RELEVANT_COLOR}" fill-opacity="0.35" stroke="{RELEVANT_COLOR}" stroke-width="2"/>'
        f'<circle cx="225" cy="115" r="85" fill="{UTILIZED_COLOR}" fill-opacity="0.35" stroke="{UTILIZED_COLOR}" stroke-width="2"/>'
        f'<text x="95" y="45" text-anchor="middle" font-size="13" font-weight="600">relevant</text>'
        f'<text x="265" y="45" text-anchor="middle" font-size="13" font-weight="600">utilized</text>'
        f"{region(r_only, 'left')}{region(both, 'middle')}{region(u_only, 'right')}"
        f'<text x="180" y="222" text-anchor="middle" font-size="12" class="rv-muted" fill="#57606a">neither: {neither} of {n_total} sentences</text>'
        "</svg>"
    )


def venn_html(example: Example, labels: Labels | None, title: str = "") -> str:
    """The Venn of *labels* on *example* (keys cleaned of trailing dots for display)."""
    if labels is None:
        return f'<div style="{_BOX}">unlabeled</div>'
    svg = venn_svg(
        {clean_key(k) for k in labels.relevant_keys},
        {clean_key(k) for k in labels.utilized_keys},
        example.n_context_sentences,
        title,
    )
    return f'<div style="{_BOX};text-align:center">{venn_img(svg)}</div>'


def venn_img(svg: str) -> str:
    """*svg* as an ``<img>`` with a ``data:`` URI: ``st.html``'s sanitiser strips inline ``<svg>``
    (the Venn was blank), an image it keeps. The SVG's text is already escaped, and an image runs no
    script. The alt text names the counts for screen readers."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        f'<img class="rv-venn" src="data:image/svg+xml;base64,{data}" width="360" height="230" '
        'style="max-width:100%;height:auto" alt="Venn diagram of relevant and utilized sentences">'
    )


def delta_html(judge: float | None, human: float | None) -> str:
    """``judge 0.500 → human 0.333 (−0.167)`` in one line."""
    if judge is None or human is None or math.isclose(judge, human):
        return ""
    d = human - judge
    return f'<span style="color:{BAD_COLOR if d < 0 else NUM_COLOR};font-weight:600">{d:+.3f}</span>'


_SMALL = "font-size:0.85rem"


_MUTED = MUTED


_TABLE = "border-collapse:collapse;font-size:0.85rem;margin:4px 0 8px 0;width:100%"


_CELL = "border-bottom:1px solid rgba(140,149,159,0.3);padding:2px 6px;text-align:left;vertical-align:top"


def filled_html(term: Filled) -> str:
    """One metric on a line: ``retrieval_precision = relevant chunks / chunks = 2 / 4 = 0.500``."""
    return (
        f'<div class="rv-filled" data-metric="{esc(term.metric)}" style="{_SMALL};margin:2px 0">'
        f"<b>{esc(term.metric)}</b> = {esc(term.formula)} = <code>{esc(term.filled)}</code> = "
        f'<b style="font-size:1rem">{format_score(term.value)}</b></div>'
    )


def _flag(value: bool) -> str:
    color = NUM_COLOR if value else GREY
    return f'<span style="color:{color};font-weight:700">{YES if value else NO}</span>'


def _table(header: list[str], rows: list[list[str]], css_class: str) -> str:
    head = "".join(f'<th style="{_CELL}">{esc(h)}</th>' for h in header)
    body = "".join("<tr>" + "".join(f'<td style="{_CELL}">{c}</td>' for c in row) + "</tr>" for row in rows)
    return f'<table class="{css_class}" style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def tonic_html(expl: TonicExplanation | None) -> str:
    """Tonic's values with the chunk flags they count (and why each is set) and the supported
    response sentences."""
    if expl is None:
        return f'<div style="{_BOX}">unlabeled</div>'
    rows = [
        [
            str(c.document),
            f"{_flag(c.relevant)} <span style='{_MUTED}'>{esc(c.relevant_why)}</span>",
            f"{_flag(c.used)} <span style='{_MUTED}'>{esc(c.used_why)}</span>",
        ]
        for c in expl.chunks
    ]
    sources = (
        f"relevant: {expl.relevant_source} · used: {expl.used_source} · answer_similarity: {expl.similarity_source}"
    )
    return (
        f'<div class="rv-tonic" style="{_BOX}">'
        + "".join(filled_html(t) for t in expl.terms)
        + f'<div style="{_SMALL};margin-top:6px"><b>Chunks</b> <span style="{_MUTED}">({esc(sources)})</span></div>'
        + _table(["doc", "relevant", "used"], rows, "rv-chunks")
        + f'<div style="{_SMALL}"><b>supported</b> ({len(expl.supported)}): {_keys_html(expl.supported, NUM_COLOR)}</div>'
        + f'<div style="{_SMALL}"><b>unsupported</b> ({len(expl.unsupported)}): {_keys_html(expl.unsupported, BAD_COLOR)}</div>'
        + "</div>"
    )


def retrieval_html(expl: RetrievalExplanation) -> str:
    """One system: the ranked ids marked relevant or not (top k shaded) and the filled formulas."""
    rows = []
    for x in expl.ranking:
        shade = "background:rgba(140,149,159,0.18);" if x.in_top_k else ""
        rows.append(
            [
                f'<span style="{shade}padding:0 4px">{x.rank}</span>',
                f"<code>{esc(x.doc_id)}</code>",
                f"{_flag(x.relevant)}" + (f" <span style='{_MUTED}'>grade {x.grade}</span>" if x.grade > 1 else ""),
                "top k" if x.in_top_k else "",
            ]
        )
    missing = (
        f'<div style="{_SMALL}">relevant but not retrieved (count in Recall): '
        + ", ".join(f"<code>{esc(d)}</code>" for d in expl.not_retrieved)
        + "</div>"
        if expl.not_retrieved
        else ""
    )
    return (
        f'<div class="rv-retrieval" data-system="{esc(expl.system)}" style="{_BOX}">'
        f'<div style="font-size:0.95rem;margin-bottom:4px"><b>system {esc(expl.system)}</b> '
        f'<span style="{_MUTED}">· {sum(1 for g in expl.gold.values() if g > 0)} relevant id(s) in the gold list · k = {expl.k}</span></div>'
        + "".join(filled_html(t) for t in expl.terms)
        + _table(["rank", "id", "relevant", ""], rows, "rv-ranking")
        + missing
        + "</div>"
    )


def _tokens_html(tokens: tuple[str, ...], shared: tuple[str, ...]) -> str:
    left = dict.fromkeys(shared, 0)
    for t in shared:
        left[t] += 1
    out = []
    for t in tokens:
        if left.get(t, 0) > 0:
            left[t] -= 1
            out.append(f'<span style="{chip_style(NUM_COLOR)}">{esc(t)}</span>')
        else:
            out.append(f'<span style="{KEY_CHIP};background:rgba(140,149,159,0.22)">{esc(t)}</span>')
    return "".join(out) or f'<span style="{_MUTED}">no token</span>'


def answer_html(expl: AnswerExplanation | None) -> str:
    """EM / F1 / F1-set with the normalised token lists compared (shared tokens in green)."""
    if expl is None:
        return f'<div style="{_BOX}">No reference answer: EM / F1 are not computed.</div>'
    parts = [f'<div class="rv-answer" style="{_BOX}">', *(filled_html(t) for t in expl.terms)]
    for n, g in enumerate(expl.golds, start=1):
        title = f"reference {n}" if len(expl.golds) > 1 else "reference"
        parts.append(
            f'<div style="{_SMALL};margin-top:8px"><b>{esc(title)}</b> '
            f'<span style="{_MUTED}">EM {format_score(g.em)} · F1 {format_score(g.f1)} · F1-set {format_score(g.f1_set)}</span></div>'
            f'<div style="{_SMALL}">response, SQuAD-normalised ({len(expl.prediction_tokens)} tokens, {len(g.shared_tokens)} shared): '
            f"{_tokens_html(expl.prediction_tokens, g.shared_tokens)}</div>"
            f'<div style="{_SMALL}">{esc(title)}, SQuAD-normalised ({len(g.gold_tokens)} tokens): '
            f"{_tokens_html(g.gold_tokens, g.shared_tokens)}</div>"
            f'<div style="{_SMALL}">sets (F1-set, articles kept): response {len(expl.prediction_set)}, {esc(title)} {len(g.gold_set)}, '
            f"shared {len(g.shared_set)}: {_tokens_html(g.shared_set, g.shared_set)}</div>"
        )
    parts.append("</div>")
    return "".join(parts)
