"""The measured coverage of the app's intervals (the estimates' and the judge-vs-people figures'): the one place
the figures live.

Every number here comes from ``benchmarks/bench_ppi.py`` (1,000 simulated audits per audit size on the
2,896 RAGBench test rows, ``BENCHMARKS.md``; the t's from ``benchmarks/bench_design_target.py``, the stratified
one's from ``bench_designs.py --interval t``) or
``benchmarks/bench_agreement_intervals.py``; the notes of :mod:`ragviz.analysis.estimates.report`, the ``ragviz
estimate --help`` text, agreement's intervals and the Dashboard / Explainer read them from here, so a rerun that
moves a figure is changed in one place. Loose on the analysis floor, under every room that shows an interval. No
imports: the CLI reads it while building its parser.
"""

from __future__ import annotations

__all__ = ["APPROXIMATE_BELOW", "INTERVAL_COVERAGE", "MIN_AUDITED", "MIN_REVIEWED", "more_needed", "too_few_words"]


# Below this many audited examples (with a value on both sides) no corrected figure is said in plain words:
# the smallest n of the simulation at which the corrected interval the app shows covers at least 93 % for
# every TRACe metric, with the biased judge and with a judge right on nearly every audited example. Run of
# 2026-11-26 (n = 10 / 30 / 50 / 100): adherence under the biased judge covers 99.8 / 91.3 / 88.2 / 94.7 %.
MIN_AUDITED = 100

# Audits smaller than this give intervals that may cover less than they say, per PPI++ interval method.
APPROXIMATE_BELOW = {"normal": 300, "bootstrap-t": 100, "t": 100}

# How often each PPI++ interval method (as shown: within the range, floored) contains the true mean in the
# simulation (95 % intervals): the figures the manual (docs/concepts/intervals.md) and `ragviz estimate --help` give.
INTERVAL_COVERAGE = {
    "t": "93–96 % at 100, 300 and 1,000 audited examples, uniform, stratified and calibrated active audits (92–98 % at 30 and 50)",
    "bootstrap-t": "93–97 % at 100, 300 and 1,000 audited examples (88–96 % at 30 and 50)",
    "normal": "90–95 % at 100 audited examples (short for skewed metrics) and 92–96 % at 300",
}


def more_needed(n_audited: int) -> int:
    """How many more audited examples a corrected figure needs (0 from :data:`MIN_AUDITED` on).

    >>> more_needed(6), more_needed(100), more_needed(400)
    (94, 0, 0)
    """
    return max(0, MIN_AUDITED - n_audited)


# Below this many reviewed examples no figure comparing the judge with people (Cohen's κ, accuracy, precision,
# recall, F1, RMSE, the judge's bias) gets an interval, and each says :func:`too_few_words` instead: the
# smallest n of benchmarks/bench_agreement_intervals.py (5, 10, 20, 30, 50, 100, 300 reviewed) from which every
# such interval covers at least 93 %, and at least 10: at 5 a figure is undefined in one sample of twenty and
# its interval spans most of the range (BENCHMARKS.md, "Agreement with people at small n"). The unit is the
# reviewed example: its sentence decisions are made together.
MIN_REVIEWED = 10


def too_few_words(n: int, minimum: int) -> str:
    """What a figure says instead of an interval below its *minimum* (of reviewed / audited examples): the one
    wording of every page, report and CLI output.

    >>> too_few_words(6, 10)
    'too few reviewed to say (6 of 10)'
    """
    return f"too few reviewed to say ({n:,} of {minimum:,})"
