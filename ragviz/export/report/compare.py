"""The stakeholder report's first section when the data holds two systems: B − A per metric and subset, the judge
corrected by people, and the verdict in words (:mod:`ragviz.analysis.compare_systems`, the Dashboard's figures).
Every text from data goes through :func:`html.escape`."""

from __future__ import annotations

from html import escape
from typing import Any

from ragviz.analysis.compare_systems.difference import CompareReport
from ragviz.analysis.compare_systems.words import headline, verdicts

__all__ = ["COMPARE_SECTION", "compare_html", "sections_html"]


COMPARE_SECTION = ("compare", "Two systems compared")


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _pt(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f}"


def compare_html(report: CompareReport | None, error: str | None = None) -> str:
    """The section's body: the headline, each metric's verdict, and a table of B − A in points per subset."""
    if report is None:
        return f'<p class="note">{_e(error or "No comparison.")}</p>'
    out = [f'<p class="sub">{_e(headline(report, with_verdict=False))}</p>']
    out += [f'<p class="lead">{_e(v)}</p>' for v in verdicts(report)]
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=num' if i >= 2 else ''}>{c}</td>"
            for i, c in enumerate(
                [
                    _e(r["group"]),
                    _e(r["metric"]),
                    f"{r['n_audited']:,} of {r['n_pairs']:,}",
                    _pt(r["judge_diff"]),
                    _pt(r["ppi_diff"]) + (" (too few)" if r["more_needed"] else ""),
                    "no interval" if r["ppi_low"] is None else f"{_pt(r['ppi_low'])} to {_pt(r['ppi_high'])}",
                ]
            )
        )
        + "</tr>"
        for r in report.rows()
    )
    head = "".join(
        f"<th{' class=num' if i >= 2 else ''}>{h}</th>"
        for i, h in enumerate(["subset", "metric", "questions audited", "judge alone", "corrected", "95% interval"])
    )
    out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
    out.append(
        f'<p class="note">{_e(report.b)} − {_e(report.a)} in points, paired by {_e(report.pair_by)}; higher is better '
        "on every TRACe metric. Corrected = the judge on every question, its bias removed by the questions whose two "
        "answers people reviewed (PPI++).</p>"
    )
    out += [f'<p class="note">{_e(n)}</p>' for n in report.notes()]
    return "".join(out)


def sections_html(
    sections: tuple[tuple[str, str], ...], bodies: dict[str, Any], report: CompareReport | None, error: str | None
) -> tuple[str, str]:
    """The report's table of contents and its sections (*bodies* by key), the comparison first when the data holds
    two systems (*report*, or the *error* that kept them from being compared)."""
    if report is not None or error is not None:
        bodies = {**bodies, COMPARE_SECTION[0]: compare_html(report, error)}
        sections = (COMPARE_SECTION, *sections)
    nav = "".join(f'<li><a href="#{key}">{_e(title)}</a></li>' for key, title in sections)
    return nav, "".join(f'<section id="{key}"><h2>{_e(title)}</h2>{bodies[key]}</section>' for key, title in sections)
