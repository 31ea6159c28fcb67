"""Where the browser's time per J goes on the Review page and on the framework's floor (issue 38), in headless chromium.

Starts the app (and the floor page, ``floor_page.py``) on ``--data``, presses J ``--steps`` times on each and prints per
J the renderer's own counters (Chrome DevTools ``Performance.getMetrics``: script, style recalculation, layout, all
tasks; the number of style recalculations and layouts; the page's DOM nodes) and, from a CPU profile of the same
presses (``Profiler``), the script's self time per source file and the heaviest functions.

    .venv/bin/python benchmarks/profile_j.py [--data sample] [--steps 6] [--top 12]
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

__all__ = ["main", "self_times"]

METRICS = ("ScriptDuration", "RecalcStyleDuration", "LayoutDuration", "TaskDuration")
COUNTS = ("RecalcStyleCount", "LayoutCount", "Nodes")


def self_times(profile: dict) -> tuple[dict[str, float], dict[str, float]]:
    """A CPU profile's self time in seconds per source file (its last path part) and per function (``name (file)``)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    samples, deltas = profile.get("samples", []), profile.get("timeDeltas", [])
    by_file: collections.Counter[str] = collections.Counter()
    by_function: collections.Counter[str] = collections.Counter()
    for node_id, delta in zip(samples, deltas):
        frame = nodes[node_id]["callFrame"]
        url = frame.get("url", "").split("?")[0].rsplit("/", 1)[-1] or "(native)"
        name = frame.get("functionName") or "(anonymous)"
        by_file[url] += delta / 1e6
        by_function[f"{name} ({url})"] += delta / 1e6
    return dict(by_file), dict(by_function)


def _metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def _walk(browser, target: Target, steps: int, top: int) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(target.start_url())
    target.wait_drawn(page, 0)
    page.wait_for_timeout(SETTLE_MS + 500)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    before = _metrics(cdp)
    cdp.send("Profiler.start")
    for step in range(1, steps + 1):
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("j")
        page.wait_for_timeout(20)
        target.wait_drawn(page, step)
        page.wait_for_timeout(SETTLE_MS)
    profile = cdp.send("Profiler.stop")["profile"]
    after = _metrics(cdp)
    print(f"{target.kind}: per J over {steps} presses")
    for name in METRICS:
        print(f"  {name:22s} {1000 * (after[name] - before[name]) / steps:8.1f} ms")
    for name in COUNTS[:2]:
        print(f"  {name:22s} {(after[name] - before[name]) / steps:8.1f}")
    print(f"  {'DOM nodes (at the end)':22s} {after['Nodes']:8.0f}")
    by_file, by_function = self_times(profile)
    print("  script self time per file, per J:")
    for name, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {1000 * seconds / steps:7.1f} ms  {name}")
    print("  heaviest functions, per J:")
    for name, seconds in sorted(by_function.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {1000 * seconds / steps:7.1f} ms  {name[:110]}")
    page.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="sample")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    path = _data_path(args.data)
    uids, rows = _rows(args.data, path, args.steps)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        floor_rows = Path(tmp) / "floor_rows.json"
        import json

        floor_rows.write_text(json.dumps(rows), encoding="utf-8")
        env = {"RAGVIZ_DATA": path, "RAGVIZ_DB": str(Path(tmp) / "review.db"), "RAGVIZ_ANNOTATOR": "bench"}
        with serve(ROOT / "benchmarks" / "floor_page.py", {"FLOOR_EXAMPLES": str(floor_rows)}, Path(tmp)) as (url, pid):
            _walk(browser, Target("floor", url, pid, uids), args.steps, args.top)
        with serve(ROOT / "app.py", env, Path(tmp)) as (url, pid):
            _walk(browser, Target("review", url, pid, uids), args.steps, args.top)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
