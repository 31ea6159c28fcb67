"""A J's timeline on the Review page and on the framework's floor (issue 38), in headless chromium.

``bench_floor.py`` times a J from Python; this one asks the page itself when each step of a J happened, in
milliseconds after the key went down (``performance.now()``): the websocket message the browser sends, each message
it receives, each React commit (one redraw of Streamlit's app: read through the hook React DevTools uses), the URL's
new entry (Review's bar puts the example in it once the frame that shows it is drawn), the first animation frame at which the next example is drawn
whole (``bench_floor.DRAWN_JS``, checked on every frame by the page) and the end of that frame's rendering (a task the
drawn frame's callback queues runs once the frame's style, layout, paint and commit are done: ``bench_floor.py``'s J,
polled from Python, ends after them). Without Python's polling, and without the 20 ms
``bench_floor.py`` waits before it looks, these times are shorter than its J.

It shows how a J's messages arrive. When they all come in one burst the browser redraws once; when the server's
flush loop sends them in several (it sends what is queued, then sleeps 5 ms), the browser redraws once per burst, and
each redraw of Review's app costs several times the floor's.

    .venv/bin/python benchmarks/bench_j_timeline.py [--data 100k] [--steps 8] [--runs 2] [--baseline DIR] [--each]

Prints per target the medians (send, first and last message, drawn, rendered; commits and message bursts before
drawn) and
the drawn time of the J whose messages came in one burst against the others'. ``--each``: every J's timeline too.
``--baseline DIR``: another ragviz source tree (``git archive <commit> | tar -x -C DIR``), measured in the same
alternation.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_floor import DRAWN_JS, SETTLE_MS, Target, _data_path, quiet_browser, serve_targets  # noqa: E402 - a sibling

__all__ = ["Press", "bursts", "main", "measure"]

BURST_GAP_MS = 2.0  # messages closer than this arrived together (one task queue's worth)

# Before the app's scripts: record the key, the socket's sends and receipts, React's commits and the URL's pushes.
INIT = """(() => {
  window.__tl = [];
  const at = (kind) => window.__tl.push([kind, performance.now()]);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (d) { at('send'); return send.call(this, d); };
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', () => at('message'), true);
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
  document.addEventListener('keydown', () => at('key'), true);
  const push = history.pushState;
  history.pushState = function (...args) { at('push'); return push.apply(this, args); };
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true, renderers: new Map(), isDisabled: false,
    inject() { return 1; }, checkDCE() {}, onCommitFiberUnmount() {}, onPostCommitFiberRoot() {},
    onCommitFiberRoot() { at('commit'); },
  };
  window.__watch = (drawn, arg) => {
    const frame = () => {
      if (!drawn(arg)) return requestAnimationFrame(frame);
      at('drawn');
      setTimeout(() => at('rendered'), 0);  // runs after the drawn frame's rendering steps
    };
    requestAnimationFrame(frame);
  };
})();"""


@dataclass
class Press:
    """One J: milliseconds after the key of each step (``None``: it did not happen)."""

    send: float | None
    messages: list[float] = field(default_factory=list)
    commits: list[float] = field(default_factory=list)
    push: float | None = None
    drawn: float = 0.0
    rendered: float | None = None

    @classmethod
    def from_events(cls, events: list[list]) -> Press:
        """The press recorded as ``[kind, time]`` pairs; only what happened until it was drawn."""
        key = next(t for kind, t in events if kind == "key")
        drawn = next(t for kind, t in events if kind == "drawn") - key
        rendered = next((t - key for kind, t in events if kind == "rendered"), None)
        until = [(kind, t - key) for kind, t in events if kind != "key" and t - key <= drawn]
        sends = [t for kind, t in until if kind == "send"]
        pushes = [t - key for kind, t in events if kind == "push"]  # the URL follows the drawn frame
        return cls(
            send=sends[0] if sends else None,
            messages=[t for kind, t in until if kind == "message"],
            commits=[t for kind, t in until if kind == "commit"],
            push=pushes[-1] if pushes else None,
            drawn=drawn,
            rendered=rendered,
        )

    def line(self) -> str:
        """The press in one line, its steps in time order."""
        steps = [("send", self.send), ("push", self.push)] + [("msg", t) for t in self.messages]
        steps += [("commit", t) for t in self.commits]
        return " ".join(f"{k}{t:.0f}" for k, t in sorted((s for s in steps if s[1] is not None), key=lambda s: s[1]))


def bursts(times: list[float], gap: float = BURST_GAP_MS) -> int:
    """How many bursts *times* (sorted, ms) come in: a new one wherever two neighbours are *gap* or more apart.

    >>> bursts([10.0, 10.5, 11.0, 20.0, 20.2])
    2
    >>> bursts([])
    0
    """
    return sum(1 for i, t in enumerate(times) if i == 0 or t - times[i - 1] >= gap)


def _walk(browser, target: Target, steps: int) -> list[Press]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.add_init_script(INIT)
    page.goto(target.start_url())
    target.wait_drawn(page, 0)
    page.wait_for_timeout(SETTLE_MS)
    presses = []
    for step in range(1, steps + 1):
        page.evaluate("() => { window.__tl = []; document.activeElement && document.activeElement.blur(); }")
        page.evaluate("([js, arg]) => window.__watch(eval(js), arg)", [DRAWN_JS, [target.kind, target.want(step)]])
        page.keyboard.press("j")
        target.wait_drawn(page, step)
        page.wait_for_timeout(SETTLE_MS)
        presses.append(Press.from_events(page.evaluate("() => window.__tl")))
    context.close()
    return presses


def measure(name: str, runs: int, steps: int, browser, workdir: Path, baseline: Path | None = None) -> dict:
    """Floor and Review (and the *baseline* tree's Review) on data set *name*, walked alternately; each one's
    presses."""
    with contextlib.ExitStack() as stack:
        targets = serve_targets(stack, name, _data_path(name), steps, workdir, baseline)
        found: dict[str, list[Press]] = {target.kind: [] for target in targets}
        for target in targets:  # warm the servers: data loaded, modules imported
            _walk(browser, target, 1)
        for _ in range(runs):
            for target in targets:
                found[target.kind] += _walk(browser, target, steps)
    return found


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(name: str, found: dict[str, list[Press]], each: bool = False) -> list[str]:
    """The medians per target, and the drawn time of one-burst J against the others'."""
    lines = [f"{name}: ms after the key (medians over {len(found['floor'])} J per target)"]
    for kind, presses in found.items():
        burst = [p.drawn for p in presses if bursts(p.messages) == 1]
        split = [p.drawn for p in presses if bursts(p.messages) > 1]
        lines.append(
            f"  {kind:9} send {_med([p.send for p in presses if p.send is not None]):5.1f}"
            f"  first message {_med([p.messages[0] for p in presses if p.messages]):5.1f}"
            f"  last {_med([p.messages[-1] for p in presses if p.messages]):5.1f}"
            f"  drawn {_med([p.drawn for p in presses]):5.1f}"
            f"  rendered {_med([p.rendered for p in presses if p.rendered is not None]):5.1f}"
            f"  | commits {_med([len(p.commits) for p in presses]):.0f}"
            f"  message bursts {_med([bursts(p.messages) for p in presses]):.0f}"
            f"  | one burst: {len(burst)} J, drawn {_med(burst):5.1f}; more: {len(split)} J, drawn {_med(split):5.1f}"
        )
        if each:
            lines += [f"      {p.line()}  drawn{p.drawn:.0f}" for p in presses]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="100k", help="sample, ragbench or 100k (comma-separated)")
    parser.add_argument("--steps", type=int, default=8, help="presses of J per walk")
    parser.add_argument("--runs", type=int, default=2, help="walks per page, floor and Review alternately")
    parser.add_argument("--baseline", type=Path, help="another ragviz source tree, its Review page measured too")
    parser.add_argument("--each", action="store_true", help="print every J's timeline too")
    args = parser.parse_args(argv)
    with quiet_browser() as (browser, workdir):
        for name in filter(None, args.data.split(",")):
            found = measure(name, args.runs, args.steps, browser, workdir, args.baseline)
            print("\n".join(report(name, found, args.each)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
