"""The stakeholder report as one self-contained HTML document: styles inline, system fonts, charts as inline
SVG, no script and no request when opened; print CSS keeps a chart or a card on one page (A4 or Letter).

Every text from data, annotators or the judge goes through :func:`html.escape` here (:func:`_e`); SVG text is
escaped by vl-convert. The same content gives the same bytes: no timestamp but the stated date.

The module reads best whole: one section after another in the order a reader meets them, sharing the cell
formatters (:func:`_ci`, :func:`_pct`) and the escaping.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from ragviz.analysis.agreement import BINARY_LABELS
from ragviz.analysis.coverage import MIN_EXAMPLES
from ragviz.analysis.figure_intervals import INTERVAL_NOTE
from ragviz.analysis.review.edits import BOTH, RELEVANT, UTILIZED, ContextSpan, ResponseSpan
from ragviz.analysis.trace_formulas import FormulaTerm, filled_formula
from ragviz.export.report.compare import sections_html
from ragviz.export.report.content import CORRECTED, ReportContent
from ragviz.export.report.examples import MAX_SENTENCES, WorkedExample

__all__ = [
    "CSS",
    "LABEL_WORDS",
    "SECTIONS",
    "distributions_html",
    "example_html",
    "examples_html",
    "headline_html",
    "method_html",
    "report_html",
    "trust_html",
]


SECTIONS = (
    ("headline", "What people would say"),
    ("trust", "Can the judge be trusted?"),
    ("distributions", "Distributions and subsets"),
    ("examples", "Worked examples"),
    ("method", "Method and provenance"),
)
LABEL_WORDS = {
    "relevant": "relevant context sentences",
    "utilized": "context sentences the answer used",
    "supported": "answer sentences supported by the context",
    "adherent": "answers fully supported (adherence)",
}

CSS = """
:root{color-scheme:light}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2328;
 background:#fff;margin:0;line-height:1.45;font-size:15px}
main{max-width:960px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:1.9rem;margin:0 0 4px}h2{font-size:1.4rem;margin:36px 0 8px;padding-top:8px;border-top:2px solid #d0d7de}
h3{font-size:1.1rem;margin:20px 0 6px}
.sub{color:#57606a;margin:0 0 12px}
.lead{font-size:1.05rem;margin:6px 0}
table{border-collapse:collapse;width:100%;margin:8px 0 12px;font-size:0.88rem}
th,td{border:1px solid #d0d7de;padding:4px 7px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ci{display:block;color:#57606a;font-size:0.8rem}
figure{margin:10px 0 16px;padding:0}
figure svg{max-width:100%;height:auto;display:block}
figcaption{color:#57606a;font-size:0.85rem;margin-top:4px}
.note{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:6px 10px;margin:6px 0;font-size:0.88rem}
.verdict{font-weight:600}
.verdict.good{color:#1a7f37}.verdict.bad{color:#b35900}.verdict.unknown{color:#57606a}
.card{border:1px solid #d0d7de;border-radius:8px;padding:12px 14px;margin:12px 0}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.key{display:inline-block;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.78rem;
 font-weight:600;border-radius:4px;padding:0 4px;margin:0 3px 0 0;background:#eaeef2}
.s{display:block;margin:2px 0;font-size:0.86rem;overflow-wrap:anywhere}
.s.both{background:#ddf4ff}.s.relevant{background:#eef7ff}.s.utilized{background:#fff1e5}
.s.unsupported{background:#ffebe9}
.formula{font-size:0.86rem;margin:3px 0}
.legend{font-size:0.8rem;color:#57606a}
code,.cmd{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.82rem;overflow-wrap:anywhere}
.cmd{display:block;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px 10px;white-space:pre-wrap}
nav ol{margin:4px 0 0 20px;padding:0}
@media print{
 @page{margin:14mm}
 body{font-size:11pt}
 main{max-width:none;padding:0}
 h2{break-before:auto;break-after:avoid}h3{break-after:avoid}
 figure,tr,.note,.cols,.formula,.s{break-inside:avoid;page-break-inside:avoid}
 nav{display:none}
 .cols{grid-template-columns:1fr 1fr}
}
"""


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _ci(
    low: float | None, high: float | None, fmt: Callable[[float | None], str] = _num, why: str | None = None
) -> str:
    return _e(why) if why else "no interval" if low is None or high is None else f"{fmt(low)} – {fmt(high)}"


def _two(v: float | None) -> str:
    return _num(v, 2)


def _table(
    header: Sequence[str] | None, rows: Sequence[Sequence[str]], numeric: Sequence[int] = (), cls: str = ""
) -> str:
    """A table of already-escaped cells (*header* ``None``: none)."""
    head = "".join(f"<th{' class=num' if i in numeric else ''}>{h}</th>" for i, h in enumerate(header or ()))
    body = "".join(
        "<tr>" + "".join(f"<td{' class=num' if i in numeric else ''}>{c}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    thead = f"<thead><tr>{head}</tr></thead>" if header else ""
    return f'<table class="{cls}">{thead}<tbody>{body}</tbody></table>'


def _figure(name: str, svg: str | None, caption: str) -> str:
    if not svg:
        return ""
    return f'<figure class="chart" data-chart="{_e(name)}">{svg}<figcaption>{_e(caption)}</figcaption></figure>'


def _notes(lines: Sequence[str]) -> str:
    return "".join(f'<p class="note">{_e(line)}</p>' for line in lines)


def headline_html(c: ReportContent, svgs: dict[str, str]) -> str:
    out = []
    if c.sample is None:
        out.append(
            '<p class="note">No audit yet: nobody has reviewed a random sample of these examples, so the figures '
            "below are the judge's alone. Draw an audit sample on the Review page (Queue: Audit sample) and review "
            "it to correct them.</p>"
        )
    else:
        corrected = any(r.status == CORRECTED for r in c.headline)
        lead = f"Corrected with a {c.design}" if corrected else f"A {c.design}, too small yet"
        out.append(
            f'<p class="sub">{lead}: {c.n_audited:,} of the {c.sample.size:,} '
            f"examples drawn (sample {c.sample.id}, seed {c.sample.seed}) reviewed by people, out of "
            f"{c.n_examples:,} examples. Corrected = the judge on every example, its bias removed by the audit "
            "(prediction-powered inference, PPI++); 95% intervals.</p>"
        )
    out += [f'<p class="lead">{_e(t)}</p>' for t in [*(r.sentence for r in c.headline), c.design_note] if t]
    rows = [
        [
            _e(r.metric),
            _pct(r.judge),
            _pct(r.estimate)
            if r.status == CORRECTED
            else _e(f"{r.status}: {r.more_needed:,} more needed" if r.more_needed else r.status),
            _ci(r.low, r.high, _pct) if r.status == CORRECTED else "—",
            f"{r.n_audited:,}",
        ]
        for r in c.headline
    ]
    out.append(_table(["metric", "the judge says", "people would say", "95% interval", "audited"], rows, (1, 2, 3, 4)))
    out.append(_figure("estimates", svgs.get("estimates"), "Judge alone, people alone and corrected, per metric."))
    out.append(_notes(c.notes))
    return "".join(out)


def _verdict_class(text: str) -> str:
    return "good" if text == "reliable" else "unknown" if text.startswith("too few") else "bad"


def trust_html(c: ReportContent, svgs: dict[str, str]) -> str:
    out = []
    if not c.n_pairs:
        out.append(
            '<p class="note">Nobody has reviewed an example the judge labelled yet: the judge\'s agreement with '
            "people cannot be measured (too few audited to say).</p>"
        )
    else:
        out.append(
            f'<p class="sub">Over the {c.n_pairs:,} examples people reviewed that the judge labelled; intervals: 95%, over examples ({_e(INTERVAL_NOTE)}).</p>'
        )
    items = "".join(
        f'<li>{_e(LABEL_WORDS[label])}: <span class="verdict {_verdict_class(text)}">{_e(text)}</span></li>'
        for label, text in c.verdicts.items()
    )
    out.append(f'<ul class="verdicts">{items}</ul>')
    if c.n_pairs:
        rows = [
            [
                _e(label),
                f"{t.n_decisions:,}",
                _num(t.kappa, 2),
                _e(t.too_few) if t.too_few else _ci(t.kappa_low, t.kappa_high, lambda v: _num(v, 2)),
                _pct(t.accuracy),
                _e(t.too_few) if t.too_few else _ci(t.accuracy_low, t.accuracy_high, _pct),
            ]
            for label, t in c.trust.items()
        ]
        out.append("<h3>Agreement with people per label kind</h3>")
        out.append(
            _table(["label", "decisions", "Cohen's κ", "95% interval", "accuracy", "95% interval"], rows, (1, 2, 4))
        )
        out.append(_figure("kappa", svgs.get("kappa"), "Cohen's κ of the judge against people, 95% interval."))
    if c.bias:
        rows = [
            [_e(b.metric), _points(b.bias), _ci(b.low, b.high, _points), f"{b.n_audited:,}"] for b in c.bias.values()
        ]
        out.append("<h3>The judge's bias per metric</h3>")
        out.append(
            '<p class="sub">Judge minus what people would say, in percentage points (positive: the judge says '
            "more than people).</p>"
        )
        out.append(_table(["metric", "bias", "95% interval", "audited"], rows, (1, 2, 3)))
        out.append(_figure("bias", svgs.get("bias"), "Bias per metric in points, 95% interval; 0 = unbiased."))
    if len(c.trust_by_group) > 1:
        rows = []
        for group, labels in c.trust_by_group.items():
            few = labels[BINARY_LABELS[0]].too_few  # said once per row, in the examples cell
            cells = [_num(t.kappa, 2) for t in (labels[x] for x in BINARY_LABELS)]
            if not few:
                cells = [
                    f'{cell}<span class="ci">{_ci(t.kappa_low, t.kappa_high, _two)}</span>'
                    for cell, t in zip(cells, (labels[x] for x in BINARY_LABELS))
                ]
            n = labels[BINARY_LABELS[0]].n_examples
            rows.append([_e(group), f'{n:,}<span class="ci">{_e(few)}</span>' if few else f"{n:,}", *cells])
        out.append(f"<h3>Agreement per {_e(c.group_title)}: Cohen's κ (95% interval)</h3>")
        out.append(_table([_e(c.group_title), "examples", *BINARY_LABELS], rows, (1, 2, 3, 4, 5)))
    out.append(
        _figure(
            "scatter",
            svgs.get("scatter"),
            "Judge vs people per reviewed example (circle size: examples in the cell); on the dashed line they agree.",
        )
    )
    return "".join(out)


def _points(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f}".replace("-", "−")


def distributions_html(c: ReportContent, svgs: dict[str, str]) -> str:
    out = [
        f"<p class=\"sub\">Every example under the current labels (people's where they decided, else the judge's); "
        f"{c.n_examples:,} examples.</p>",
        _figure("histogram", svgs.get("histogram"), f"Distribution of each metric, stacked by {c.group_title}."),
        _figure(
            "means",
            svgs.get("means"),
            f"Mean per {c.group_title} with its 95% interval (expanded percentile bootstrap, Wilson for 0/1 metrics; none below {MIN_EXAMPLES} examples).",
        ),
    ]
    metrics = list(dict.fromkeys(r["metric"] for r in c.means))
    cells = {(r["dataset"], r["metric"]): r for r in c.means}
    rows = []
    for group in dict.fromkeys(r["dataset"] for r in c.means):
        first = cells[(group, metrics[0])]
        row = [_e(group), f"{first['n']:,}"]
        for m in metrics:
            r = cells.get((group, m))
            row.append(
                "—"
                if r is None
                else f'{_num(r["mean"])}<span class="ci">{_ci(r["low"], r["high"], why=r.get("too_few"))}</span>'
            )
        rows.append(row)
    out.append(f"<h3>Mean per {_e(c.group_title)} (95% interval: bootstrap, Wilson for 0/1 metrics)</h3>")
    out.append(
        _table([_e(c.group_title), "examples with a value", *map(_e, metrics)], rows, tuple(range(1, len(metrics) + 2)))
    )
    return "".join(out)


_STATE_WORDS = {BOTH: "relevant, used", RELEVANT: "relevant", UTILIZED: "used"}


def _context_html(docs: Sequence[Sequence[ContextSpan]], n_total: int) -> str:
    out, shown = [], 0
    for d, doc in enumerate(docs):
        if not doc:
            continue
        out.append(f'<div class="legend">document {d}</div>')  # numbered from 0, as the keys and the app number them
        for s in doc:
            shown += 1
            tag = _STATE_WORDS.get(s.state)
            mark = f" <i>({tag})</i>" if tag else ""
            out.append(f'<span class="s {_e(s.state)}"><span class="key">{_e(s.key)}</span>{_e(s.text)}{mark}</span>')
    if n_total > shown:
        out.append(
            f'<div class="legend">{n_total - shown:,} other context sentences: neither side counts or cites them '
            f"(at most {MAX_SENTENCES} shown)</div>"
        )
    return "".join(out)


def _response_html(spans: Sequence[ResponseSpan]) -> str:
    out = []
    for s in spans:
        verdict, said = f"<b>{_e(s.status)}</b>", "supported by" if s.status == "supported" else "cites"
        cited = f" <i>({said} {_e(' '.join(s.supporting_keys))})</i>" if s.supporting_keys else ""
        out.append(
            f'<span class="s {_e(s.status)}"><span class="key">{_e(s.key)}</span>{_e(s.text)} — {verdict}{cited}</span>'
        )
    return "".join(out)


def _terms_html(terms: Sequence[FormulaTerm]) -> str:
    return "".join(
        f'<div class="formula"><b>{_e(t.metric)}</b> = {_e(t.formula)} = <b>{_e(filled_formula(t, _num(t.value)))}</b></div>'
        for t in terms
    )


def example_html(n: int, ex: WorkedExample) -> str:
    changes = "".join(f"<li>{_e(line)}</li>" for line in ex.changes)
    return (
        f'<div class="card example" data-uid="{_e(ex.uid)}">'
        f"<h3>Example {n}: {_e(ex.kind)}</h3>"
        f'<p class="sub"><code>{_e(ex.uid)}</code> · {_e(ex.dataset)}</p>'
        f"<p><b>Question:</b> {_e(ex.question)}</p>"
        f"<p><b>Where people differ from the judge:</b></p><ul>{changes}</ul>"
        '<div class="cols">'
        f"<div><h3>The judge</h3>{_terms_html(ex.judge_terms)}</div>"
        f"<div><h3>People</h3>{_terms_html(ex.people_terms)}</div>"
        "</div>"
        '<div class="cols">'
        f"<div><h3>Answer, as the judge labelled it</h3>{_response_html(ex.judge_response)}</div>"
        f"<div><h3>Answer, as people labelled it</h3>{_response_html(ex.people_response)}</div>"
        "</div>"
        '<div class="cols">'
        f"<div><h3>Context, the judge's labels</h3>{_context_html(ex.judge_context, ex.n_context)}</div>"
        f"<div><h3>Context, people's labels</h3>{_context_html(ex.people_context, ex.n_context)}</div>"
        "</div></div>"
    )


def examples_html(c: ReportContent) -> str:
    if not c.examples:
        why = "no audit yet" if c.n_pairs == 0 else "people agreed with the judge on every example they reviewed"
        return f'<p class="note">No worked example: {_e(why)}.</p>'
    intro = (
        '<p class="sub">Reviewed examples where people and the judge differ, chosen to show the judge\'s most common '
        "error. Each formula is filled in with the sentences it counts (keys: document number and sentence letter; "
        "answer sentences by letter).</p>"
    )
    return intro + "".join(example_html(i + 1, ex) for i, ex in enumerate(c.examples))


def method_html(c: ReportContent) -> str:
    p = c.provenance
    # the interval each metric got, as the CLI's header says it (t: Student's t around the cross-fitted estimate)
    intervals = "PPI++" if c.estimates is None else _e(f"PPI++, {c.estimates.intervals_used()} intervals")
    files = _table(
        ["data file", "rows", "SHA-256"],
        [[_e(f.name), f"{f.rows:,}", f"<code>{_e(f.sha256)}</code>"] for f in p.files],
        (1,),
    )
    groups = _table([_e(c.group_title), "rows"], [[_e(g), f"{n:,}"] for g, n in p.rows_by_group], (1,))
    judges = [[_e(name), "—", f"{n:,}", "in the data files"] for name, n in p.judges_in_files]
    judges += [[_e(name), _e(v), f"{n:,}", "in the label store"] for name, v, n in p.judges_in_store]
    judge_table = (
        _table(["judge (model)", "prompt version", "label sets", "where"], judges, (2,))
        if judges
        else "<p>No judge named in the data.</p>"
    )
    people = (
        _table(
            ["annotator", "examples reviewed", "examples corrected"],
            [[_e(a.name), f"{a.reviewed:,}", f"{a.corrected:,}"] for a in p.annotators],
            (1, 2),
        )
        if p.annotators
        else "<p>No annotator has decided on an example yet.</p>"
    )
    outside = [f"{_e(a.name)} {a.elsewhere:,}" for a in p.annotators if a.elsewhere]
    if outside:
        people += (
            '<p class="sub">Counted over the loaded examples only. Examples reviewed that are not in the loaded '
            f"data, not counted here: {', '.join(outside)}.</p>"
        )
    if c.sample is not None:
        drawer = f" by {_e(c.sample.created_by)}" if c.request.names else ""
        audit = (
            f"<p>Audit sample {c.sample.id}: {c.sample.size:,} examples drawn as a {_e(c.design)} (seed "
            f"{c.sample.seed}) from {c.sample.population_size:,}{drawer}; {c.n_audited:,} "
            f"reviewed. People's labels: {_e(str(c.request.against) if c.request.names else 'human')}.</p>"
        )
    else:
        audit = "<p>No audit sample drawn from these examples.</p>"
    facts = _table(
        None,
        [
            ["ragviz version", _e(p.version)],
            ["date", _e(p.date)],
            ["label store", f"<code>{_e(p.store)}</code>"],
            ["examples", f"{c.n_examples:,}"],
        ],
    )
    return (
        "<p>TRACe metrics (RAGBench): relevance = relevant context sentences / all context sentences; utilization = "
        "used / all; completeness = relevant and used / relevant; adherence = 1 when every answer sentence is "
        f"supported. The corrected estimates are prediction-powered ({intervals}); subset means "
        "carry percentile-bootstrap intervals (1,000 resamples, seeded).</p>"
        f"{facts}<h3>Data</h3>{files}{groups}<h3>Judge</h3>{judge_table}<h3>People</h3>{people}"
        f'<h3>Audit</h3>{audit}<h3>Rebuild this report</h3><span class="cmd">{_e(p.command)}</span>'
    )


def report_html(c: ReportContent, svgs: dict[str, str]) -> str:
    """The whole document (*svgs*: chart name -> SVG text from :func:`ragviz.export.report.charts.to_svg`)."""
    bodies: dict[str, Any] = {
        "headline": headline_html(c, svgs),
        "trust": trust_html(c, svgs),
        "distributions": distributions_html(c, svgs),
        "examples": examples_html(c),
        "method": method_html(c),
    }
    nav, sections = sections_html(SECTIONS, bodies, c.comparison, c.comparison_error)  # two systems: theirs first
    subtitle = f"{c.n_examples:,} examples · {c.provenance.date} · ragviz {c.provenance.version}"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(c.request.title)}</title><style>{CSS}</style></head>"
        f'<body><main><header><h1>{_e(c.request.title)}</h1><p class="sub">{_e(subtitle)}</p>'
        f"<nav><ol>{nav}</ol></nav></header>{sections}</main></body></html>\n"
    )
