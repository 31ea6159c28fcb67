"""The Explainer's Venn diagram drawn by chromium: every line of sentence keys lies inside its region of the diagram,
however many keys there are (the RAGBench expertqa example with 1,056 context sentences ran its utilized-only keys
past the circle and into the middle's, "2k2ae"). The SVG is the one the page shows (as an image), measured here as
a document of its own so each text's box can be read."""

from __future__ import annotations

import math

import pytest

from ragviz.ui.explainer.html import VENN_CX, VENN_CY, VENN_R, venn_svg

pytestmark = pytest.mark.browser

# the judge's keys of expertqa_test/expertqa_206/ExpertQA (1,056 context sentences), as the Explainer shows them
EXPERTQA_RELEVANT = {"2a", "2aa", "2b", "2c", "2d", "2e", "2f", "2g", "2h", "2j", "2k", "2l", "2m", "2p", "2q", "2t",
                     "2v", "2x", "2z"}  # fmt: skip
EXPERTQA_UTILIZED = {"2ae", "2b", "2c", "2e", "2ed", "2ee", "2ez", "2k", "2m", "2t", "2x", "2z"}
LONG_KEYS = [f"{d}{c}{c}" for d in range(12) for c in "abcde"]  # 60 keys of 3–4 characters

TEXT_BOXES_JS = """() => [...document.querySelectorAll('text[font-size="11"]')].map(t => {
  const b = t.getBBox(); return {x: +t.getAttribute('x'), text: t.textContent, left: b.x, right: b.x + b.width,
  top: b.y, bottom: b.y + b.height}; })"""


def _inside(box: dict) -> bool:
    """The text's box (its top and bottom corners) within the region its centre is in, 1 px of slack."""
    for y in (box["top"] + 2, box["bottom"] - 2):  # the box's ascent and descent above / below the ink
        h = math.sqrt(max(VENN_R**2 - (y - VENN_CY) ** 2, 0.0))
        if box["x"] < 180 - 1:
            low, high = VENN_CX[0] - h, VENN_CX[1] - h
        elif box["x"] > 180 + 1:
            low, high = VENN_CX[0] + h, VENN_CX[1] + h
        else:
            low, high = VENN_CX[1] - h, VENN_CX[0] + h
        if box["left"] < low - 1 or box["right"] > high + 1:
            return False
    return True


@pytest.mark.parametrize(
    "relevant, utilized",
    [
        (EXPERTQA_RELEVANT, EXPERTQA_UTILIZED),
        (set(LONG_KEYS[:40]), set(LONG_KEYS[20:])),  # 20 each side, 20 in the middle
        (set(), set(LONG_KEYS)),
    ],
    ids=["expertqa_206", "sixty-keys", "one-side"],
)
def test_every_line_of_keys_lies_inside_its_region(page, relevant, utilized):
    page.set_content(venn_svg(relevant, utilized, 1056, "judge"))
    boxes = page.evaluate(TEXT_BOXES_JS)
    assert boxes, "no key drawn"
    outside = [b for b in boxes if not _inside(b)]
    assert outside == [], outside
    shown = {k for b in boxes if not b["text"].endswith(" more") for k in b["text"].split()}
    more = sum(int(b["text"].split()[0][1:]) for b in boxes if b["text"].endswith(" more"))
    assert shown <= relevant | utilized and len(shown) + more == len(relevant | utilized)  # every key, or counted
