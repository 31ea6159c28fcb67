"""What each websocket message of a J on the Review page carries (issue 38), in headless chromium.

Starts the app on ``--data`` (default the sample data), opens the Review page, presses J ``--steps`` times and prints,
per press, every message the browser received, decoded as Streamlit's ``ForwardMsg``: its kind (a new element and
its type, a new block and its type, the script's start and end, ...) and its delta path. Then the counts per kind.

    .venv/bin/python benchmarks/ws_breakdown.py [--data sample] [--steps 2] [--present]

``--present`` opens the page in presentation mode (``?present=1``).
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_floor import CHROMIUM, SETTLE_MS, Target, _data_path, _rows, serve  # noqa: E402 - a sibling script

__all__ = ["describe", "main"]


def describe(payload: bytes) -> str:
    """One ``ForwardMsg`` in words: its kind and, for a delta, what it draws and where."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    msg = ForwardMsg()
    msg.ParseFromString(payload)
    kind = msg.WhichOneof("type")
    if kind != "delta":
        return kind or "?"
    path = ".".join(str(p) for p in msg.metadata.delta_path)
    delta = msg.delta
    what = delta.WhichOneof("type")
    if what == "new_element":
        element = delta.new_element.WhichOneof("type")
        if element == "bidi_component":
            element += f" ({delta.new_element.bidi_component.component_name})"
        return f"element {element} @ {path}"
    if what == "add_block":
        block = delta.add_block.WhichOneof("type")
        return f"block {block} @ {path}"
    return f"{what} @ {path}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="sample")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--present", action="store_true")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    path = _data_path(args.data)
    uids, _ = _rows(args.data, path, args.steps)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        env = {"RAGVIZ_DATA": path, "RAGVIZ_DB": str(Path(tmp) / "review.db"), "RAGVIZ_ANNOTATOR": "bench"}
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        with serve(ROOT / "app.py", env, Path(tmp)) as (url, pid):
            target = Target("review", url, pid, uids)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            frames: list[bytes] = []
            page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
            page.goto(target.start_url() + ("&present=1" if args.present else ""))
            target.wait_drawn(page, 0)
            page.wait_for_timeout(SETTLE_MS + 300)
            totals: collections.Counter[str] = collections.Counter()
            for step in range(1, args.steps + 1):
                page.evaluate("() => document.activeElement && document.activeElement.blur()")
                start = len(frames)
                page.keyboard.press("j")
                page.wait_for_timeout(20)
                target.wait_drawn(page, step)
                page.wait_for_timeout(SETTLE_MS)
                got = [describe(f) if isinstance(f, bytes) else "text" for f in frames[start:]]
                print(f"J {step}: {len(got)} messages")
                for line in got:
                    print("  " + line)
                totals.update(line.split(" @ ")[0] for line in got)
            print("per kind, all presses:")
            for kind, n in totals.most_common():
                print(f"  {n:4d}  {kind}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
