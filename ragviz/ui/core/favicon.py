"""The browser tab's icon, drawn here and given to the browser by the app itself: a page's ``:material/…:`` icon would
make Streamlit fetch the favicon from fonts.gstatic.com, and an emoji needs an emoji font the machine may lack."""

from __future__ import annotations

import base64
import functools
import io

import numpy as np
from PIL import Image

from ragviz.ui.core.render import GREEN, ORANGE, SKY

__all__ = ["favicon", "favicon_url"]


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


@functools.cache
def favicon() -> bytes:
    """A 32 x 32 PNG: three highlighted lines of text, in the Review page's label colours."""
    icon = np.full((32, 32, 3), 255, dtype=np.uint8)
    for row, (colour, width) in enumerate(((GREEN, 28), (SKY, 20), (ORANGE, 24))):
        top = 3 + row * 10
        icon[top : top + 7, 2 : 2 + width] = _rgb(colour)
    out = io.BytesIO()
    Image.fromarray(icon).save(out, format="PNG")
    return out.getvalue()


@functools.cache
def favicon_url() -> str:
    """:func:`favicon` as a ``data:`` URL: the page's icon without a request. Given as bytes, Streamlit serves it under
    ``/media/`` without any cache header, and Chrome asks for it again on each move of the Review page (the bar's
    script puts the example in the URL): one HTTP request on the server per J, beside the run (issue 38)."""
    return "data:image/png;base64," + base64.b64encode(favicon()).decode("ascii")
