"""The adjudication view: one example whose annotators disagree, their labels side by side on its text with
the differences marked, and a choice per difference (one side's value, or a new label); settling makes the
example's gold labels. What the adjudicator was shown is kept when the page is drawn, so a settlement made
meanwhile by someone else, or an annotator's change, refuses this one (``StaleAdjudication``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from ragviz.analysis.team.adjudicate import AdjudicationError, next_to_adjudicate, settle_example, shown_now
from ragviz.analysis.team.gold import ExampleRound, Unit, example_round
from ragviz.data.dataset import Dataset
from ragviz.data.model import Example
from ragviz.store.errors import StoreError, StoreUnavailable
from ragviz.ui.core import access, render, state, unsaved
from ragviz.ui.core.keys import TEAM_ADJ_LAST, TEAM_ADJ_SEEN, TEAM_ADJ_UID, TEAM_MESSAGE

__all__ = ["NEW_LABEL", "adjudication_view", "side_by_side_html", "value_text"]


NEW_LABEL = "A new label"
_WORDS = {
    "relevant": ("relevant", "not relevant"),
    "utilized": ("utilized", "not utilized"),
    "supported": ("supported", "unsupported"),
}


def value_text(kind: str, value: Any) -> str:
    """How a unit's value reads: ``"relevant"`` / ``"not relevant"`` ..., supporting keys as ``"0b, 1a"``."""
    if kind == "supporting":
        return ", ".join(value) if value else "no supporting sentence"
    yes, no = _WORDS[kind]
    return yes if value else no


def _cell(r: ExampleRound, who: str, units: Sequence[Unit]) -> str:
    values = r.values.get(who)
    if values is None:
        return "—"
    index = {u: i for i, u in enumerate(r.units)}
    parts = []
    for kind, key in units:
        v = values[index[(kind, key)]]
        if kind in ("relevant", "utilized"):
            if v:
                parts.append(kind)
        elif kind == "supported":
            parts.append("supported" if v else "unsupported")
        else:
            parts.append("← " + (", ".join(v) if v else "none"))
    return render.esc(" · ".join(parts) or "—")


def side_by_side_html(example: Example, r: ExampleRound) -> str:
    """A table: each sentence of the example (context, then response) with each annotator's labels on it;
    rows where they differ are marked (≠ and a tint that reads on light and dark themes)."""
    names = list(r.values)
    differing = {key for _, key in r.differences}
    head = "".join(f"<th>{render.esc(n)}</th>" for n in names)
    rows = []

    def row(key: str, text: str, units: Sequence[Unit], section: str) -> None:
        mark = any(u in r.differences for u in units)
        cls = ' class="rv-adj-diff"' if mark else ""
        flag = '<span class="rv-adj-flag" title="the annotators differ here">≠</span> ' if mark else ""
        cells = "".join(f"<td>{_cell(r, n, units)}</td>" for n in names)
        rows.append(
            f'<tr{cls} data-key="{render.esc(section + key)}"><td class="rv-adj-key">{flag}{render.esc(key)}</td>'
            f'<td class="rv-adj-text">{render.long_text_html(text, 400)}</td>{cells}</tr>'
        )

    for s in example.context_sentences():
        row(s.key, s.text, [("relevant", s.key), ("utilized", s.key)], "context:")
    rows.append(f'<tr class="rv-adj-section"><td colspan="{2 + len(names)}">Response</td></tr>')
    for s in example.response_sentences:
        row(s.key, s.text, [("supported", s.key), ("supporting", s.key)], "response:")
    style = (
        "<style>.rv-adj{border-collapse:collapse;width:100%;font-size:0.9rem}"
        ".rv-adj th,.rv-adj td{border-bottom:1px solid rgba(128,128,128,.3);padding:4px 6px;text-align:left;"
        "vertical-align:top}.rv-adj-diff{background:rgba(255,160,0,.18)}.rv-adj-flag{color:#d97706;font-weight:700}"
        ".rv-adj-key{white-space:nowrap}.rv-adj-section td{font-weight:600;padding-top:10px}</style>"
    )
    n_diff = len(differing)
    return (
        f'{style}<div class="rv-adj-wrap" data-differences="{len(r.differences)}">'
        f'<table class="rv-adj"><thead><tr><th>Sentence</th><th>Text</th>{head}</tr></thead>'
        f'<tbody><tr class="rv-adj-section"><td colspan="{2 + len(names)}">Context</td></tr>{"".join(rows)}'
        f"</tbody></table></div><!-- {n_diff} -->"
    )


def _options(r: ExampleRound, unit: Unit) -> list[tuple[str, Any]]:
    """(label, value) per distinct value the annotators gave *unit*, with who gave it; a boolean unit
    offers both values (the one nobody gave is the "new label")."""
    i = r.units.index(unit)
    by_value: dict[Any, list[str]] = {}
    for who, values in r.values.items():
        by_value.setdefault(values[i], []).append(who)
    kind = unit[0]
    if kind != "supporting":
        for v in (True, False):
            by_value.setdefault(v, [])
    out = []
    for v, givers in by_value.items():
        label = render.md_escape(value_text(kind, v) + (f" ({', '.join(givers)})" if givers else " (new label)"), None)
        out.append((label, v))
    if kind == "supporting":
        out.append((NEW_LABEL, None))
    return out


def _widget(uid: str, unit: Unit) -> str:
    return f"team.adj.{uid}.{unit[0]}.{unit[1]}"


def _explanations(r: ExampleRound, chosen: dict[Unit, Any]) -> dict[str, str]:
    out = {}
    for labels in r.labels.values():
        for s in labels.support:
            verdict = chosen.get(("supported", s.key))
            if s.explanation and s.key not in out and (verdict is None or bool(s.supported) == verdict):
                out[s.key] = s.explanation
    return out


def _settle(example: Example, who: str) -> None:
    if not access.access().can_adjudicate:  # checked again when the click arrives
        st.session_state[TEAM_MESSAGE] = "Not settled: only admins and adjudicators (RAGVIZ_ADJUDICATORS) settle."
        return
    seen_uid, seen = st.session_state.get(TEAM_ADJ_SEEN, (None, ""))
    store = state.store()
    r, _ = shown_now(example, store)
    chosen: dict[Unit, Any] = {}
    for unit in r.differences:
        picked = st.session_state.get(_widget(example.uid, unit))
        if picked is None:
            continue
        options = dict(_options(r, unit))
        if picked == NEW_LABEL:
            chosen[unit] = tuple(sorted(st.session_state.get(_widget(example.uid, unit) + ".new") or ()))
        elif picked in options:
            chosen[unit] = options[picked]
    try:
        if seen_uid != example.uid:
            raise AdjudicationError(f"{example.uid}: look at it again before settling")
        settle_example(example, store, who, chosen, seen, _explanations(r, chosen))
    except StoreUnavailable as exc:  # the driver's words go to the server's log, not to the page
        unsaved.log_fault(exc, f"not settled ({example.uid} by {who})")
        st.session_state[TEAM_MESSAGE] = (
            f"Not settled: the database is unavailable; settle {example.uid} again when it is back."
        )
        return
    except (AdjudicationError, StoreError) as exc:
        st.session_state[TEAM_MESSAGE] = f"Not settled: {exc}"
        return
    st.session_state[TEAM_ADJ_LAST] = example.uid
    st.session_state[TEAM_MESSAGE] = f"Settled {example.uid}: its gold labels are the ones chosen."


def _undo(uid: str, who: str) -> None:
    if not access.access().can_adjudicate:
        return
    done = state.store().team.adjudications.undo_settlement(uid, who)
    st.session_state.pop(TEAM_ADJ_LAST, None)
    st.session_state[TEAM_ADJ_UID] = uid
    st.session_state[TEAM_MESSAGE] = f"Undone: {uid} is back in the adjudication queue." if done else "Nothing to undo."


def _skip(uid: str) -> None:
    st.session_state[TEAM_ADJ_UID] = ("after", uid)


def adjudication_view(ds: Dataset, queue: list[str], who: str) -> None:
    """The next example of *queue* that still needs adjudication, side by side, with the settle form."""
    store = state.store()
    last = st.session_state.get(TEAM_ADJ_LAST)
    if last is not None:
        st.button("Undo the last settlement", key="team.adj_undo", on_click=_undo, args=(last, who), shortcut="Z")
    at = st.session_state.get(TEAM_ADJ_UID)
    after = at[1] if isinstance(at, tuple) else None
    start = at if isinstance(at, str) else None

    def example_of(uid: str) -> Example:
        row = ds.index_of(uid)
        assert row is not None
        return ds.example(row)

    if start is not None:
        current = example_round(example_of(start), store)
        found = (start, current) if current.needs_adjudication else next_to_adjudicate(queue, start, example_of, store)
    else:
        found = next_to_adjudicate(queue, after, example_of, store)
    if found is None:
        st.success("Nothing to adjudicate: every ready example is agreed or settled.")
        st.session_state.pop(TEAM_ADJ_UID, None)
        return
    uid, _ = found
    st.session_state[TEAM_ADJ_UID] = uid
    example = example_of(uid)
    r, seen = shown_now(example, store)
    st.session_state[TEAM_ADJ_SEEN] = (uid, seen)
    position = queue.index(uid) + 1 if uid in queue else 1
    st.markdown(
        f"**{render.md_escape(uid)}** · {position:,} of {len(queue):,} in the queue · {len(r.differences)} difference(s)"
        + (" · settled before, then an annotator changed their labels" if r.stale else "")
    )
    st.caption(render.md_escape(example.question, limit=400))
    st.html(side_by_side_html(example, r))
    with st.form(f"team-settle-{uid}", border=True):
        st.markdown("**Settle each difference**")
        context = example.context_keys()
        for unit in r.differences:
            kind, key = unit
            shown = [label for label, _ in _options(r, unit)]
            st.radio(
                render.md_escape(f"{kind} · sentence {key}"), shown, index=None, key=_widget(uid, unit), horizontal=True
            )
            if kind == "supporting":
                st.multiselect("New supporting sentences", context, key=_widget(uid, unit) + ".new")
        st.form_submit_button("Settle", type="primary", on_click=_settle, args=(example, who))
    st.button("Skip to the next", key="team.adj_skip", on_click=_skip, args=(uid,), shortcut="J")
