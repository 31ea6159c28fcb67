"""Waiting for a Streamlit page in the browser tests."""

from __future__ import annotations

WAIT = 60_000


def settle(page, timeout: int = WAIT) -> None:
    """Until the page is drawn whole: no script running (its status widget is gone) and no element
    left from an older run. A rerun changes the URL early and may show no status widget at all while
    the elements drawn before it are still on screen (marked stale): a key pressed then goes to those.
    The short wait first lets a rerun that a click or key just asked for begin."""
    page.wait_for_timeout(150)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]') && !document.querySelector('[data-stale=true]')",
        timeout=timeout,
    )
