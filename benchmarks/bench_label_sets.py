"""What the pages other than the Dashboard's TRACe part cost at scale, outside Streamlit: resolving the
label sets, Compare's diff, annotator agreement, the Dashboard's Tonic / retrieval / answer views and
the audit pairing, on one data file with a store of one decision on every 1,000th example by each of
two annotators (and an audit sample of 400).

    .venv/bin/python benchmarks/bench_label_sets.py /tmp/syn100k.parquet [--with-examples]

Prints wall and CPU seconds and the RSS growth of each step (with the load average). With
``--with-examples`` every row's Example is built first (timed too) and handed to each step, as the
app did before the label sets went columnar: run it that way from an older checkout
(``PYTHONPATH=/tmp/old``) for the "before" figures.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def step(name: str, fn):
    rss, cpu, wall = _rss_mb(), time.process_time(), time.perf_counter()
    result = fn()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"{name:>28}  {wall:7.2f} s  {cpu:7.2f} s CPU  {_rss_mb() - rss:+7.0f} MB  load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--with-examples", action="store_true", help="build every Example first (the old way)")
    args = parser.parse_args(argv)

    from ragviz.analysis.dashboard import families
    from ragviz.analysis.estimates.pairing import pair_store
    from ragviz.analysis.labelsets.diff import diff_label_sets
    from ragviz.analysis.labelsets.named import HUMAN, JUDGE, resolve_label_set
    from ragviz.analysis.team.kappas import annotator_agreement
    from ragviz.data.dataset import iter_examples
    from ragviz.data.labels import Change
    from ragviz.data.load import load
    from ragviz.store.label_store import LabelStore

    ds = step("load", lambda: load([args.data]).dataset)
    print(f"{len(ds):,} rows; RSS {_rss_mb():.0f} MB", flush=True)
    with tempfile.TemporaryDirectory() as tmp, LabelStore(Path(tmp) / "bench.db") as store:
        for k, i in enumerate(range(0, len(ds), 1000)):
            ex = ds.example(i)
            who = ("ann", "bob")[k % 2]
            if ex.labels is not None:
                store.record(ex.uid, who, [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
                if k % 3 == 0:
                    store.record(ex.uid, ("bob", "ann")[k % 2], [Change("review", None, "reviewed")])
        examples = step("build every Example", lambda: dict(iter_examples(ds))) if args.with_examples else None

        def compare():
            a = resolve_label_set(ds, JUDGE, store, examples=examples)
            b = resolve_label_set(ds, HUMAN, store, examples=examples)
            return diff_label_sets(ds, a, b)

        diffs = step("Compare (llm vs human)", compare)
        print(f"{len(diffs):,} examples differ", flush=True)
        step("annotator agreement", lambda: annotator_agreement(ds, examples, store))
        families = families.families_present(examples) if examples is not None else ["tonic", "retrieval", "answer"]
        for family in ("tonic", "retrieval", "answer"):
            if family in families:
                view = step(
                    f"Dashboard {family} view", lambda f=family: families.family_view(ds, examples, HUMAN, store, f)
                )
                print(f"{len(view.records):,} records", flush=True)
        members = [ds.uids[i] for i in range(0, len(ds), max(1, len(ds) // 400))]
        kwargs = {"examples": examples} if "examples" in inspect.signature(pair_store).parameters else {}
        pairing = step("audit pairing (400 sampled)", lambda: pair_store(ds, store, members, HUMAN, **kwargs))
        print(f"{pairing.n_labeled} audited", flush=True)
    print(f"RSS at the end {_rss_mb():.0f} MB", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
