"""A labelling team's round at scale: assigning 100,000 examples with overlap 3 over 20 annotators, the Team
page's figures at 100,000 examples and 300,000 decisions (cold, as its first render computes them, and the
page's first render and rerun under Streamlit's AppTest: the Progress tab first, then the Annotators and
Adjudication tabs), the Annotators tab's Cohen / Fleiss kappa, the gold label set with every example's labels
built, the whole round cold (all of these together), ``agreement --annotators``, ``export --labels gold``
(``--export``) and the adjudication queue's next example.

    .venv/bin/python benchmarks/bench_team.py --data /tmp/syn100k.parquet [--annotators 20] [--overlap 3] [--export]

(``benchmarks/make_synthetic.py 100000 /tmp/syn100k`` writes the data.) The decisions are written straight
into an SQLite store in one transaction (300,000 durable commits would take the benchmark's whole time): every
assignment decided, one in ten with one relevant key dropped, so some examples need adjudication.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def timed(label: str, runs: int, work: Callable[[], Any]) -> Any:
    """Run *work* *runs* times; print the median wall seconds and, beside it, the process's CPU seconds (on a machine
    shared with other work the wall time follows the load, the CPU time much less)."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    print(
        f"{label:>58}  {statistics.median(walls):8.3f} s  cpu {statistics.median(cpus):7.3f} s  "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    return result


def seed_decisions(store: Any, dataset: Any, every_disagree: int = 10) -> int:
    """Every current assignment decided (a review mark; one in *every_disagree* drops a relevant key)."""
    from ragviz.store.events import now_iso

    conn = store.db.conn
    ts = now_iso()
    actions, events, statuses = [], [], []
    action_id = event_id = 0
    for n, (uid, names) in enumerate(store.team.assignments.assigned().items()):
        row = dataset.index_of(uid)
        keys = list(dataset.example(row).labels.relevant_keys) if n % every_disagree == 0 else []
        for j, who in enumerate(names):
            action_id += 1
            event_id += 1
            if keys and j == 0:
                field, old, new, corrected = "relevant_keys", keys, keys[1:], 1
            else:
                field, old, new, corrected = "review", None, "reviewed", 0
            actions.append((action_id, uid, who, ts, "edit"))
            events.append((event_id, action_id, uid, who, ts, field, json.dumps(old), json.dumps(new)))
            statuses.append((who, uid, 1, corrected, ts, action_id))
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany("INSERT INTO label_actions (id, example_uid, annotator, ts, kind) VALUES (?, ?, ?, ?, ?)", actions)
    conn.executemany(
        "INSERT INTO label_events (id, action_id, example_uid, annotator, ts, field, old_value, new_value)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        events,
    )
    conn.executemany("INSERT INTO example_status VALUES (?, ?, ?, ?, ?, ?)", statuses)
    conn.execute("COMMIT")
    return len(actions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--overlap", type=int, default=3)
    parser.add_argument("--skip-page", action="store_true", help="leave out the AppTest first render / rerun")
    parser.add_argument("--export", action="store_true", help="also time export --labels gold to Parquet")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="leave out comparing everyone's labels over the whole round (minutes at 100k): the queue is then the "
        "examples written with a disagreement",
    )
    args = parser.parse_args(argv)

    from ragviz.analysis.labelsets.selection import GOLD
    from ragviz.analysis.team.adjudicate import next_to_adjudicate, shown_now
    from ragviz.analysis.team.dashboard import table_alpha, team_figures
    from ragviz.analysis.team.kappas import table_kappas
    from ragviz.analysis.team.progress import median_seconds, table_progress
    from ragviz.analysis.team.table import round_table
    from ragviz.data.load import load
    from ragviz.export.targets import Target, export
    from ragviz.store.label_store import LabelStore
    from ragviz.store.team.assignments import plan_assignments

    dataset = timed("load the data", 1, lambda: load([args.data]).dataset)
    uids = list(dataset.uids)
    pool = [f"annotator{i:02d}@example.org" for i in range(args.annotators)]
    n = f"{len(uids):,} examples x overlap {args.overlap} / {args.annotators} annotators"
    timed(f"plan the assignments ({n})", 1, lambda: plan_assignments(uids, args.overlap, pool, {}))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "team.db"
        with LabelStore(db) as store:
            timed(
                f"assign, stored in SQLite ({n})",
                1,
                lambda: store.team.assignments.assign(uids, args.overlap, pool, "bench"),
            )
            loads = sorted(({w: 0 for w in pool} | _counts(store.team.assignments.assigned())).values())
            print(f"{'queue sizes':>58}  {loads[0]:,} .. {loads[-1]:,}")
            n_decisions = timed("write the decisions (one transaction)", 1, lambda: seed_decisions(store, dataset))
            print(f"{'decisions':>58}  {n_decisions:,}")

            def figures() -> Any:
                table = round_table(dataset, store)
                team_figures(table, median_seconds(store, set(uids)), store.team.guidelines.decision_versions())
                table_progress(table)  # the Team page's progress for an admin
                return table

            if args.quick:
                # seed_decisions' disagreements
                queue = [u for n, u in enumerate(store.team.assignments.assigned()) if n % 10 == 0]
            else:
                table = timed("Team page figures, cold (round, progress, dashboard)", 1, figures)
                queue = table.queue()
                kappas = timed(
                    "Annotators tab: Cohen's / Fleiss' kappa on the round's table", 1, lambda: table_kappas(table)
                )
                print(
                    f"{'kappa pairs, examples counted':>58}  {len(kappas.pairs)}, {sum(kappas.n_examples.values()):,}"
                )
                gold = timed("gold label set, every example's labels built", 1, lambda: _gold_built(dataset, table))
                print(f"{'examples with gold labels':>58}  {gold:,}")
                timed(
                    "whole round cold (figures, progress, kappa, gold set)",
                    1,
                    lambda: _whole_round(dataset, store, uids),
                )
                timed(
                    "agreement --annotators (round, kappa, alpha)",
                    1,
                    lambda: (table_alpha(t := round_table(dataset, store)), table_kappas(t)),
                )
                if args.export:
                    out = Path(tmp) / "gold.parquet"
                    timed(
                        "export --labels gold to Parquet (the round kept)",
                        1,
                        lambda: export(store, GOLD, dataset, Target(str(out), "parquet")),
                    )
            print(f"{'examples waiting for an adjudicator':>58}  {len(queue):,}")

            def example_of(uid: str) -> Any:
                return dataset.example(dataset.index_of(uid))

            def next_one() -> Any:
                found = next_to_adjudicate(queue, queue[0], example_of, store)
                assert found is not None
                return shown_now(example_of(found[0]), store)

            timed("adjudication queue: the next example, shown", 3, next_one)
        if not args.skip_page:
            page_times(args.data, db, compare=not args.quick)
    return 0


def _whole_round(dataset: Any, store: Any, uids: list[str]) -> Any:
    """Everything the Team page and the gold label set compute, cold: the round, its figures, progress, kappa, the
    gold label set (its labels are built when read: :func:`_gold_built`)."""
    from ragviz.analysis.team.dashboard import team_figures
    from ragviz.analysis.team.gold_set import round_gold
    from ragviz.analysis.team.kappas import table_kappas
    from ragviz.analysis.team.progress import median_seconds, table_progress
    from ragviz.analysis.team.table import round_table

    table = round_table(dataset, store)
    team_figures(table, median_seconds(store, set(uids)), store.team.guidelines.decision_versions())
    table_progress(table)
    table_kappas(table)
    round_gold(dataset, table)  # which examples are gold, agreed or adjudicated, by whom, when
    return table


def _gold_built(dataset: Any, table: Any) -> int:
    """The round's gold labels, every one built (as an export or a label set reads them); how many."""
    from ragviz.analysis.team.gold_set import round_gold

    return sum(1 for _ in round_gold(dataset, table).values())


def _counts(current: dict[str, tuple[str, ...]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for names in current.values():
        for name in names:
            out[name] = out.get(name, 0) + 1
    return out


def page_times(data: str, db: Path, compare: bool = True) -> None:
    """The Team page under AppTest: the first render (the data loaded before, as the app keeps it) and a rerun."""
    from streamlit.testing.v1 import AppTest

    # not served (AppTest has no server address): the person at the machine is an admin and sees everything
    os.environ.update({"RAGVIZ_DB": str(db), "RAGVIZ_DATA": data, "RAGVIZ_ANNOTATOR": "bench", "RAGVIZ_SERVED": "0"})
    app = str(Path(__file__).resolve().parents[1] / "app.py")
    at = AppTest.from_file(app, default_timeout=900)
    timed("app start with the data loaded (Home page)", 1, at.run)
    at.switch_page("pages/team.py")
    timed("Team page: first render (Progress tab)", 1, at.run)
    assert not at.exception, [e.value for e in at.exception]
    assert any(m.label == "Examples in the round" for m in at.metric), "not the admin's Team page"
    timed("Team page: rerun", 3, at.run)
    if not compare:  # the Adjudication tab from the examples with a label change, each checked when reached
        at.session_state["team.tab"] = "Adjudication"
        timed("Team page: Adjudication tab first opened", 1, at.run)
        assert not at.exception, [e.value for e in at.exception]
        assert any("rv-adj-diff" in h.proto.body for h in at.get("html")), "no example shown side by side"
        timed("Team page: Adjudication tab rerun (next example shown)", 3, at.run)
        return
    at.session_state["team.tab"] = "Annotators"
    timed("Team page: Annotators tab first opened (labels compared)", 1, at.run)
    assert not at.exception, [e.value for e in at.exception]
    assert any("Cohen" in h.value for h in at.subheader), "no kappa matrix on the Annotators tab"
    timed("Team page: Annotators tab rerun", 3, at.run)
    at.session_state["team.tab"] = "Adjudication"
    timed("Team page: Adjudication tab (next example shown)", 3, at.run)


if __name__ == "__main__":
    raise SystemExit(main())
