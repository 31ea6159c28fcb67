"""Issue 40 on the Review page: a deep link to an id nothing loaded has was rewritten to the previous
example's uid, so the person lost the link they followed (it now stays in the URL beside the warning);
a metric's formula caption wrapped inside a fraction."""

from __future__ import annotations

from tests.apptest_helpers import open_page, review_formulas


def _param(at, name: str):
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) and value else value


def test_an_unknown_id_stays_in_the_url(app_env):
    at = open_page("pages/review.py", id="no-such-example")
    assert any("No loaded example has the id" in w.value for w in at.warning)
    assert _param(at, "id") == "no-such-example" and not _param(at, "uid")


def test_a_known_id_becomes_its_uid(app_env):
    at = open_page("pages/review.py", id="ml-vs-programming", model="gpt-4o-mini")
    assert _param(at, "uid") == "techqa_sample/ml-vs-programming/gpt-4o-mini" and not _param(at, "id")


def test_a_metric_formula_never_wraps_inside_a_fraction(app_env):
    """Issue 40: at 1280 px a formula caption wrapped as "= 4 /" and "6" on the next line."""
    at = open_page("pages/review.py", id="ml-vs-programming", model="gpt-4o-mini")
    formulas = review_formulas(at)
    assert len(formulas) == 4 and any("\u00a0/\u00a0" in f for f in formulas)
    assert not [f for f in formulas if " / " in f], formulas
    # "|" allows a line break before a no-break space: a fraction of sets is held on one line by its span
    assert any('<span style="white-space:nowrap">|R ∩ U|\u00a0/\u00a0|R|</span>' in f for f in formulas), formulas
