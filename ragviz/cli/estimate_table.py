"""``ragviz estimate``'s output, for the estimates and for ``--compare``'s system comparison alike: the report as
JSON, CSV or fixed-width text (:func:`write_report`), written to a file or stdout, its notes on stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragviz.analysis.estimates.report import EstimateReport

__all__ = ["compare_table", "csv_text", "fixed_width", "format_table", "write_report", "write_text"]


def write_report(report: Any, fmt: str, output: str | None, table: Callable[[Any], str]) -> None:
    """Write *report* (an estimate or a comparison: ``as_dict()``, ``rows()``, ``notes()``) as *fmt* (``json``,
    ``csv`` or ``table``, the text *table* makes) to *output* (``None`` or ``-``: stdout); then its notes on stderr."""
    if fmt == "json":
        import json

        text = json.dumps(report.as_dict(), indent=2) + "\n"
    elif fmt == "csv":
        text = csv_text(report.rows())
    else:
        text = table(report)
    write_text(text, output)
    for note in report.notes():
        print(f"note: {note}", file=sys.stderr)


def csv_text(rows: list[dict[str, Any]]) -> str:
    import io

    from ragviz.export.records import write_csv

    buffer = io.StringIO()
    write_csv(rows, buffer)
    return buffer.getvalue()


def write_text(text: str, output: str | None) -> None:
    """*text* to the file *output*, or to stdout for ``None`` / ``-``."""
    if output is None or output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with open(output, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def fixed_width(header: list[str], body: Sequence[list[str]], numeric: set[int]) -> list[str]:
    """The table's lines: the header, a rule, the body; the *numeric* columns right-aligned, the others left."""
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        cells = [c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    return [fmt(header), fmt(["-" * w for w in widths]), *(fmt(r) for r in body)]


def _num(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _with_ci(
    estimate: float | None, low: float | None, high: float | None, show: Callable[[float], str] = "{:.3f}".format
) -> str:
    """*estimate* [*low*, *high*] each written by *show*; "(no CI)" without bounds, "-" without an estimate."""
    if estimate is None:
        return "-"
    if low is None or high is None:
        return f"{show(estimate)} (no CI)"
    return f"{show(estimate)} [{show(low)}, {show(high)}]"


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
    lines += ["", *fixed_width(header, body, {2, 3, 4, 7, 8})]
    lines += [
        "",
        "n = audited pairs used, N = judge-only examples used, n_eff = people-only audit size as precise as PPI++"
        + ("; (too few) = under the minimum audit for a corrected figure" if short else ""),
    ]
    return "\n".join(lines) + "\n"


def _points(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f}"


def compare_table(report: Any) -> str:
    """The comparison as fixed-width text: a headline, each metric's verdict, then B − A in points per subset."""
    from ragviz.analysis.compare_systems.words import headline, verdicts

    level = f"{100 * (1 - report.alpha):g}%"
    lines = [headline(report, with_verdict=False), *(f"  {v}" for v in verdicts(report)), ""]
    header = ["group", "metric", "pairs", "audited", "judge", f"people [{level}]", f"PPI++ [{level}]", "lambda"]
    body = [
        [
            r["group"],
            r["metric"],
            str(r["n_pairs"]),
            str(r["n_audited"]),
            _points(r["judge_diff"]),
            _with_ci(r["people_diff"], r["people_low"], r["people_high"], _points),
            _with_ci(r["ppi_diff"], r["ppi_low"], r["ppi_high"], _points) + (" (too few)" if r["more_needed"] else ""),
            "-" if r["lambda"] is None else f"{r['lambda']:.2f}",
        ]
        for r in report.rows()
    ]
    lines += fixed_width(header, body, {2, 3, 4, 7})
    lines += [
        "",
        f"differences are {report.b} - {report.a} in points (higher is better on every TRACe metric); audited = "
        f"questions whose two answers people reviewed; PPI++ = the judge on every pair, corrected by the audit",
    ]
    return "\n".join(lines) + "\n"
