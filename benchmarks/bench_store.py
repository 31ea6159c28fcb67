"""Label store at scale: per-call latency with 100k examples and 1M events (defaults).

    .venv/bin/python benchmarks/bench_store.py [--examples 100000] [--events 1000000] [--db PATH]

The history is bulk-loaded in one transaction through the store's own connection and schema
(``record`` commits and fsyncs once per decision, which is the point of it but would take an hour
for a million events); ``example_status`` is filled with :func:`ragviz.store.events.status_of`, as
``record`` does. Then the calls the app makes on every rerun are timed against that file,
including durable ``record``/``undo`` calls.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragviz.data.labels import Change, field_value
from ragviz.data.model import Example, Labels, Sentence, SentenceSupport
from ragviz.store.events import Event, now_iso, status_of
from ragviz.store.label_store import LabelStore

ANNOTATORS = ("alice", "bob", "carol")


def _uid(i: int) -> str:
    return f"bench/q{i}/gen"


def bulk_load(store: LabelStore, n_examples: int, n_events: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    conn = store.db.conn  # the sqlite3 connection (this benchmark builds an SQLite file)
    per_pair: dict[tuple[str, str], list[Event]] = {}
    event_id = action_id = 0
    ts = now_iso()
    conn.execute("BEGIN IMMEDIATE")
    actions, events = [], []
    while event_id < n_events:
        uid = _uid(rng.randrange(n_examples))
        who = rng.choice(ANNOTATORS)
        action_id += 1
        r = rng.random()
        if r < 0.1:
            field, old, new = "review", None, "reviewed"
        elif r < 0.6:
            field, old, new = "relevant_keys", ["0a"], rng.choice([["0a", "0b"], ["0a"], ["1c"]])
        else:
            field, old, new = (
                "support:a",
                None,
                {"supported": rng.random() < 0.5, "supporting_keys": ["0a"], "explanation": ""},
            )
        event_id += 1
        actions.append((action_id, uid, who, ts, "edit"))
        events.append((event_id, action_id, uid, who, ts, field, json.dumps(old), json.dumps(new)))
        per_pair.setdefault((uid, who), []).append(Event(event_id, action_id, uid, who, ts, field, old, new))
        if len(events) >= 50_000:
            _flush(conn, actions, events)
    _flush(conn, actions, events)
    statuses = []
    for (uid, who), evs in per_pair.items():
        st = status_of(evs)
        statuses.append((who, uid, int(st.reviewed), int(st.corrected), st.last_ts, evs[-1].action_id))
    conn.executemany("INSERT INTO example_status VALUES (?, ?, ?, ?, ?, ?)", statuses)
    conn.execute("COMMIT")
    conn.execute("ANALYZE")


def _flush(conn, actions, events) -> None:
    conn.executemany("INSERT INTO label_actions (id, example_uid, annotator, ts, kind) VALUES (?, ?, ?, ?, ?)", actions)
    conn.executemany(
        "INSERT INTO label_events (id, action_id, example_uid, annotator, ts, field, old_value, new_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        events,
    )
    actions.clear()
    events.clear()


def _example(uid: str) -> Example:
    dataset, eid, gen = uid.split("/")
    return Example(
        id=eid,
        dataset=dataset,
        question="q",
        documents=("d",),
        document_sentences=((Sentence("0a", "x"), Sentence("0b", "y")), (Sentence("1a", "z"), Sentence("1c", "w"))),
        response="r",
        response_sentences=(Sentence("a", "r"),),
        generation_model=gen,
        labels=Labels(relevant_keys=("0a",), support=(SentenceSupport("a", True, ("0a",)),)),
    )


def timed(fn, repeat: int) -> tuple[float, float]:
    """Median and max wall time in milliseconds over *repeat* calls."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), max(times)


def positions(store: LabelStore, uids: list[str], repeat: int = 100) -> list[tuple[str, float, float, None]]:
    """``save_position`` (not durable: it does not wait for the disk) against the same statement written durably,
    as it was before (issue 38), alternately, *repeat* calls each: median and max milliseconds."""
    sql = (
        "INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)"
        " ON CONFLICT (annotator) DO UPDATE SET example_uid = excluded.example_uid, ts = excluded.ts"
    )
    relaxed, durable = [], []
    for i in range(repeat):
        uid = uids[i % len(uids)]
        t = time.perf_counter()
        store.save_position("alice", uid)
        relaxed.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        store.write(lambda q, uid=uid: q(sql, ("alice", uid, now_iso())))
        durable.append((time.perf_counter() - t) * 1000)
    return [
        ("save_position (not durable)", statistics.median(relaxed), max(relaxed), None),
        ("a position, durable (before)", statistics.median(durable), max(durable), None),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=100_000)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--db", default=None, help="file to build (default: a temporary one)")
    args = ap.parse_args(argv)
    tmp = tempfile.TemporaryDirectory()
    db = Path(args.db or Path(tmp.name) / "bench.db")

    t = time.perf_counter()
    with LabelStore(db) as store:
        if store.n_events():
            print(f"reusing {db}: {store.n_events():,} events; file {db.stat().st_size / 1e6:.0f} MB")
        else:
            bulk_load(store, args.examples, args.events)
            print(
                f"bulk load: {args.examples:,} examples, {args.events:,} events in {time.perf_counter() - t:.1f} s; "
                f"file {db.stat().st_size / 1e6:.0f} MB"
            )

    t = time.perf_counter()
    store = LabelStore(db)
    print(f"open (migrations checked): {(time.perf_counter() - t) * 1000:.1f} ms")
    rng = random.Random(1)
    uids = [_uid(rng.randrange(args.examples)) for _ in range(200)]
    rows = []
    t = time.perf_counter()
    store.reviewed_uids("alice")
    print(f"first status query for an annotator (fills the cache): {(time.perf_counter() - t) * 1000:.0f} ms")
    rows.append(
        ("reviewed_uids(alice)", *timed(lambda: store.reviewed_uids("alice"), 20), len(store.reviewed_uids("alice")))
    )
    rows.append(
        ("corrected_uids(alice)", *timed(lambda: store.corrected_uids("alice"), 20), len(store.corrected_uids("alice")))
    )
    rows.append(("statuses(alice)", *timed(lambda: store.statuses("alice"), 5), len(store.statuses("alice"))))
    rows.append(("annotators()", *timed(store.annotators, 20), len(store.annotators())))
    # what Z undoes, read on every run of the Review page before; now only when the newest event id changed
    rows.append(("last_action(alice)", *timed(lambda: store.last_action("alice"), 30), None))
    rows.append(("last_event_id(alice)", *timed(lambda: store.last_event_id("alice"), 30), None))
    it = iter(uids * 10)
    rows.append(
        ("current_labels(example)", *timed(lambda: store.current_labels(_example(next(it)), "alice"), 200), None)
    )
    it = iter(uids * 10)
    rows.append(("history(uid)", *timed(lambda: store.history(next(it)), 200), None))
    # record as the app calls it: the value the person saw, the example (the stale-edit check folds it)
    shown = [
        (_example(u), field_value(store.current_labels(_example(u), "alice"), "relevant_keys")) for u in uids[:200]
    ]
    edits = iter((ex, [Change("relevant_keys", seen, ["0a"] if seen == ["0b"] else ["0b"])]) for ex, seen in shown * 10)

    def record_one() -> None:
        ex, changes = next(edits)
        store.record(ex.uid, "alice", changes, example=ex)

    rows.append(("record (durable commit, stale-edit check)", *timed(record_one, min(200, len(shown))), None))
    it = iter(uids * 10)
    rows.append(("undo (durable commit)", *timed(lambda: store.undo(next(it), "alice"), 100), None))
    other = LabelStore(db)
    other.record(uids[0], "alice", [Change("review", None, "reviewed")])  # another process/connection writes
    rows.append(
        (
            "reviewed_uids after a foreign commit",
            *timed(
                lambda: (
                    other.record(uids[0], "alice", [Change("review", None, "reviewed")]),
                    store.reviewed_uids("alice"),
                ),
                5,
            ),
            None,
        )
    )
    other.close()
    rows += positions(store, uids)
    print(f"{'call':28s} {'median ms':>10s} {'max ms':>10s}  result size")
    for name, med, mx, size in rows:
        print(f"{name:28s} {med:10.2f} {mx:10.2f}  {'' if size is None else f'{size:,}'}")
    store.close()
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
