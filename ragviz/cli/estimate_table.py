"""``ragviz estimate``'s table: the estimates as fixed-width text under a headline and the audit's design."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragviz.analysis.estimates.report import EstimateReport

__all__ = ["format_table"]


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _with_ci(estimate: float | None, low: float | None, high: float | None) -> str:
    if estimate is None:
        return "-"
    if low is None or high is None:
        return f"{estimate:.3f} (no CI)"
    return f"{estimate:.3f} [{low:.3f}, {high:.3f}]"


def format_table(report: EstimateReport) -> str:
    """A fixed-width table of :meth:`ragviz.analysis.estimates.report.EstimateReport.rows`, under a headline
    with the hallucination rate (1 - adherence) when adherence is estimated."""
    level = f"{100 * (1 - report.alpha):g}%"
    overall = report.overall
    lines = [
        f"{overall.n_labeled} audited examples (people's labels), {overall.n_unlabeled} judge-only; "
        f"{level} intervals (PPI++: {report.intervals_used()}); PPI++ = judge on all examples, corrected by the audit"
    ]
    from ragviz.analysis.audits.sample_estimate import design_lines

    lines.extend(design_lines(report))
    from ragviz.analysis.estimates.report import too_few_text

    adherence = overall.metrics.get("adherence")
    short = [m for m in overall.metrics.values() if m.more_needed]
    if short:  # no corrected figure in words below the minimum audit (BENCHMARKS.md: coverage under 93 % there)
        lines.append(too_few_text(min(m.n_labeled for m in short)))
    elif adherence is not None:
        ppi, judge = adherence.ppi, adherence.judge
        if ppi.estimate is not None and ppi.low is not None and ppi.high is not None:
            judge_text = "-" if judge is None else f"{100 * (1 - judge):.1f}%"
            lines.append(
                f"hallucination rate (1 - adherence): {100 * (1 - ppi.estimate):.1f}% "
                f"[{100 * (1 - ppi.high):.1f}%, {100 * (1 - ppi.low):.1f}%]; the judge alone says {judge_text}"
            )
    header = ["group", "metric", "n", "N", "judge", f"people [{level} CI]", f"PPI++ [{level} CI]", "lambda", "n_eff"]
    body = [
        [
            r["group"],
            r["metric"],
            str(r["n_labeled"]),
            str(r["n_unlabeled"]),
            _num(r["judge"]),
            _with_ci(r["human"], r["human_low"], r["human_high"]),
            _with_ci(r["ppi"], r["ppi_low"], r["ppi_high"]) + (" (too few)" if r["more_needed"] else ""),
            _num(r["lambda"], 2),
            _num(r["gain"], 0),
        ]
        for r in report.rows()
    ]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    numeric = {2, 3, 4, 7, 8}

    def fmt(row: list[str]) -> str:
        cells = [c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    lines += ["", fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in body)]
    lines += [
        "",
        "n = audited pairs used, N = judge-only examples used, n_eff = people-only audit size as precise as PPI++"
        + ("; (too few) = under the minimum audit for a corrected figure" if short else ""),
    ]
    return "\n".join(lines) + "\n"
