"""Issue 40: presentation mode hides which examples were corrected; the audit queue's header and the browser
tab still said how many members were reviewed, and the Home tour offered A (accept) and Z (undo), which
do nothing on a projector. (The tab title is the header's text: pages/review.py sets both from one string.)"""

from __future__ import annotations

from tests.app.test_audit import _audit
from tests.apptest_helpers import html_blocks, open_page


def _markdown(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_presenting_the_audit_queue_says_where_but_not_how_many_were_reviewed(app_env):
    _, sample = _audit(app_env["db"], size=10, reviewed=7)
    first = sample.members[0]
    shown = open_page("pages/review.py", uid=first, queue="audit", sample="1", present="1")
    bodies = html_blocks(shown)
    assert any("Audit sample #1: member 1 of 10" in b for b in bodies), [b[:120] for b in bodies if "Audit" in b]
    assert not any("reviewed" in b for b in bodies if "Audit sample #" in b)
    working = open_page("pages/review.py", uid=first, queue="audit", sample="1")
    assert any("Audit sample #1: member 1 of 10, 7 reviewed" in b for b in html_blocks(working))


def test_the_home_tour_offers_no_editing_key_while_presenting(app_env):
    presenting = _markdown(open_page("pages/home.py", present="1"))
    assert "**J** next" in presenting and "**A** accept" not in presenting and "**Z** undo" not in presenting
    working = _markdown(open_page("pages/home.py"))
    assert "**A** accept" in working and "**Z** undo" in working
