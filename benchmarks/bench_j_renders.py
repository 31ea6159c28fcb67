"""What React re-renders for one J (issue 38): the Review page against the framework's floor, in headless chromium.

``bench_floor.py`` times a J; this counts what the browser's React does for it, figures that a loaded machine does not
stretch: the commits per J (one redraw of Streamlit's app each) and the components rendered per J (fibers that did
work), split by where they are drawn (the sidebar's page list, the rest of the sidebar, the page's header, the main
area, and ragviz's text editor, which draws the navigation bar too in the single view; "bar": the bar as an element
of its own, drawn only where something sits between it and the text). It reads React's own tree through the
hook React DevTools uses (an init script sets ``__REACT_DEVTOOLS_GLOBAL_HOOK__``; a fiber rendered in a commit is a new
fiber object with React's PerformedWork flag). With them: the renderer's task, script, layout and style seconds per J
(``Performance.getMetrics``, CPU-ish figures that a loaded machine stretches).

    .venv/bin/python benchmarks/bench_j_renders.py [--data sample] [--steps 6] [--runs 2] [--baseline DIR] [--by-element]

``--baseline DIR``: another ragviz source tree (``git archive <commit> | tar -x -C DIR``), its Review page measured in
the same alternation. ``--by-element``: each region's components split further by the Streamlit element they are
drawn in (its test id, key and first words; fibers outside any element by their nearest test id), largest first.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_floor import CHROMIUM, SETTLE_MS, Target, _data_path, serve_targets  # noqa: E402 - a sibling script

__all__ = ["REGIONS", "main", "measure"]

# Where a rendered fiber is drawn: the first of these test ids (or element keys) among its host ancestors.
REGIONS = (
    ("bar", "st-key-review-toolbar"),
    ("editor", "st-key-review-text-response"),
    ("page list", "st-key-ragviz-page_nav"),  # ragviz's own (ragviz/ui/core/page_nav.py)
    ("sidebar pages", "stSidebarNav"),  # Streamlit's own, before ragviz drew its own: reads 0 now
    ("sidebar", "stSidebar"),
    ("page header", "stHeader"),
    ("main", "stMain"),
)

HOOK = """(regions, byElement) => {
  window.__renders = {on: false, commits: 0, byRegion: {}};
  let prev = new WeakSet();
  const mark = (props) => {
    if (!props) return null;
    const id = props['data-testid'] || '';
    const cls = typeof props.className === 'string' ? props.className : '';
    for (const [name, needle] of regions) if (id === needle || cls.split(' ').includes(needle)) return name;
    return null;
  };
  const testid = (f) => typeof f.type === 'string' && f.memoizedProps ? f.memoizedProps['data-testid'] : undefined;
  const element = (f) => {  // the Streamlit element (or layout block) drawing fiber f, else its nearest test id
    for (let p = f; p; p = p.return) {
      if (!['stElementContainer', 'stLayoutWrapper'].includes(testid(p))) continue;
      const c = p.stateNode && p.stateNode.firstElementChild;
      const key = (p.memoizedProps.className || '').split(' ').find((x) => x.startsWith('st-key-')) || '';
      const words = key || !c ? '' : (c.textContent || '').slice(0, 24);  // a keyed element: its key says it
      return `${c ? c.dataset.testid || c.tagName : '?'} ${key}${words}`;
    }
    for (let p = f; p; p = p.return) if (testid(p)) return testid(p);
    return '-';
  };
  const walk = (fiber, region, seen, out) => {
    for (let f = fiber; f; f = f.sibling) {
      seen.add(f);
      const host = typeof f.type === 'string';
      const here = (host && mark(f.memoizedProps)) || region;
      if (!host && f.tag !== 3 && f.tag !== 6 && !prev.has(f) && (f.alternate === null || (f.flags & 1) === 1)) {
        const k = byElement ? `${here} | ${element(f)}` : here;
        out[k] = (out[k] || 0) + 1;
      }
      if (f.child) walk(f.child, here, seen, out);
    }
  };
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true, renderers: new Map(), isDisabled: false,
    inject() { return 1; }, checkDCE() {}, onCommitFiberUnmount() {}, onPostCommitFiberRoot() {},
    onCommitFiberRoot(id, root) {
      const seen = new WeakSet(), out = {};
      walk(root.current.child, 'other', seen, out);
      prev = seen;
      if (!window.__renders.on) return;
      window.__renders.commits += 1;
      for (const [k, v] of Object.entries(out)) window.__renders.byRegion[k] = (window.__renders.byRegion[k] || 0) + v;
    },
  };
}"""

METRICS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def _metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] in METRICS}


def _walk(browser, target: Target, steps: int, by_element: bool = False) -> tuple[list[dict], list[dict[str, float]]]:
    """*steps* presses of J on a fresh page of *target*: per press the renders by region (and element, *by_element*)
    and the metrics' deltas."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.add_init_script(f"({HOOK})({json.dumps(REGIONS)}, {json.dumps(by_element)})")
    page.goto(target.start_url())
    target.wait_drawn(page, 0)
    page.wait_for_timeout(SETTLE_MS)
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    renders, metrics = [], []
    for step in range(1, steps + 1):
        page.evaluate(
            "() => { document.activeElement && document.activeElement.blur(); "
            "window.__renders = {on: true, commits: 0, byRegion: {}}; }"
        )
        before = _metrics(cdp)
        page.keyboard.press("j")
        page.wait_for_timeout(20)
        target.wait_drawn(page, step)
        page.wait_for_timeout(SETTLE_MS)
        after = _metrics(cdp)
        renders.append(page.evaluate("() => window.__renders"))
        metrics.append({k: after[k] - before[k] for k in METRICS})
    context.close()
    return renders, metrics


def measure(
    name: str, runs: int, steps: int, baseline: Path | None = None, by_element: bool = False
) -> dict[str, tuple[list[dict], list[dict[str, float]]]]:
    """The floor and Review (and the *baseline* tree's Review) on data set *name*, alternately, *runs* walks of
    *steps* J each (the renders split by element too: *by_element*)."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        targets = serve_targets(stack, name, _data_path(name), steps, Path(tmp), baseline)
        found: dict[str, tuple[list[dict], list[dict[str, float]]]] = {target.kind: ([], []) for target in targets}
        browser = stack.enter_context(sync_playwright()).chromium.launch(executable_path=CHROMIUM)
        for _ in range(runs):
            for target in targets:
                renders, metrics = _walk(browser, target, steps, by_element)
                found[target.kind][0].extend(renders)
                found[target.kind][1].extend(metrics)
        browser.close()
    return found


def report(name: str, found: dict[str, tuple[list[dict], list[dict[str, float]]]]) -> list[str]:
    lines = [f"{name}: load {os.getloadavg()[0]:.1f}; floor / Review per J (medians, means for the regions)"]
    for kind, (renders, metrics) in found.items():
        commits = statistics.median(r["commits"] for r in renders)
        regions: Counter[str] = Counter()
        elements: Counter[str] = Counter()
        for r in renders:
            elements.update(r["byRegion"])
            for k, v in r["byRegion"].items():
                regions[k.split(" | ")[0]] += v
        total = sum(regions.values()) / len(renders)
        split = ", ".join(f"{k} {v / len(renders):.0f}" for k, v in regions.most_common())
        times = "  ".join(
            f"{k.removesuffix('Duration').lower()} {statistics.median(m[k] for m in metrics) * 1000:.1f} ms"
            for k in METRICS
        )
        per_commit = sum(regions.values()) / max(1, sum(r["commits"] for r in renders))
        lines.append(
            f"  {kind:8s} commits {commits:.0f}, components rendered {total:.0f} ({per_commit:.0f} per commit; {split})"
        )
        lines.append(f"  {'':8s} {times}")
        lines.extend(
            f"  {'':8s} {v / len(renders):5.0f} {k}"
            for k, v in elements.most_common()
            if " | " in k and v / len(renders) >= 2
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="sample", help="sample, ragbench or 100k (comma-separated)")
    parser.add_argument("--steps", type=int, default=6, help="presses of J per walk")
    parser.add_argument("--runs", type=int, default=2, help="walks per page, floor and Review alternately")
    parser.add_argument("--baseline", type=Path, help="another ragviz source tree, its Review page measured too")
    parser.add_argument("--by-element", action="store_true", help="split each region by the element drawing it")
    args = parser.parse_args(argv)
    baseline = args.baseline.resolve() if args.baseline else None
    for name in args.data.split(","):
        print("\n".join(report(name, measure(name, args.runs, args.steps, baseline, args.by_element))), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
