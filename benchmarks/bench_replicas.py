"""Two app replicas on one PostgreSQL database under load, one SIGKILLed midway: lost / duplicated counts.

    .venv/bin/python benchmarks/bench_replicas.py [--decisions 200] [--writers 4] [--examples 10] [--db postgresql://...]

Each replica is a process holding one :class:`LabelStore` (as one app process does) shared by
``--writers`` threads (sessions). Writer *w* of both replicas is the same annotator (``ann<w>``), so
every annotator edits the same examples from two replicas at once: each decision reads the current
labels, then records the change with the value it saw (the app's path); a :class:`StaleEdit` is
counted and the decision retried from the newer labels. A writer prints each decision only after
``record`` returned (acknowledged). Replica 1 is SIGKILLed once it acknowledged half of its decisions.

Printed: acknowledged decisions, lost (acknowledged but not in the database), duplicated (one decision
stored twice), lost updates (an event whose old value is not the value the previous event of that
field stored), stale edits refused, and throughput. Without ``--db`` a throw-away server is started
from Debian's PostgreSQL binaries (``tests/pg_server.py``); an SQLite file path works too.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragviz.store.label_store import LabelStore  # noqa: E402

REPLICA = """
import sys, threading
from ragviz.data.labels import Change, field_value
from ragviz.data.ragbench import example_from_row
from ragviz.store import LabelStore, StaleEdit

db, replica, writers, n, n_examples = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
store = LabelStore(db)
lock = threading.Lock()

def example(k):
    return example_from_row({
        "id": f"q{k}", "question": "q?", "documents": ["A. B."], "response": "A.",
        "documents_sentences": [[["0a", "A."], ["0b", "B."]]], "response_sentences": [["a", "A."]],
        "generation_model_name": "g", "dataset_name": "bench",
        "all_relevant_sentence_keys": ["0a"], "all_utilized_sentence_keys": [],
        "sentence_support_information": [], "unsupported_response_sentence_keys": [],
    })

examples = [example(k) for k in range(n_examples)]
print("ready", flush=True)

def write(w):
    who = f"ann{w}"
    for i in range(n):
        ex = examples[i % len(examples)]
        new = [f"{replica}-{w}-{i}"]
        refused = 0
        while True:
            seen = field_value(store.current_labels(ex, who), "relevant_keys")
            try:
                action = store.record(ex.uid, who, [Change("relevant_keys", seen, new)], example=ex)
                break
            except StaleEdit:
                refused += 1
        with lock:
            print(action, who, ex.uid, new[0], refused, flush=True)

threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
for t in threads: t.start()
for t in threads: t.join()
"""


def spawn(db: str, replica: str, writers: int, n: int, n_examples: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", REPLICA, db, replica, str(writers), str(n), str(n_examples)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def run(db: str, writers: int, n: int, n_examples: int = 10) -> dict[str, float]:
    LabelStore(db).close()  # schema in place
    procs = {name: spawn(db, name, writers, n, n_examples) for name in ("r1", "r2")}
    acked: list[list[str]] = []
    lock = threading.Lock()
    half = writers * n // 2
    killed = threading.Event()

    def read(name: str, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        count = 0
        for line in proc.stdout:
            with lock:
                acked.append(line.split())
            count += 1
            if name == "r1" and count == half and not killed.is_set():
                os.kill(proc.pid, signal.SIGKILL)
                killed.set()

    start = time.monotonic()
    readers = [threading.Thread(target=read, args=item) for item in procs.items()]
    for t in readers:
        t.start()
    for t in readers:
        t.join()
    for p in procs.values():
        p.wait()
    elapsed = time.monotonic() - start
    if procs["r2"].returncode != 0:
        raise SystemExit(f"replica r2 failed: {procs['r2'].stderr.read() if procs['r2'].stderr else ''}")

    with LabelStore(db) as store:
        events = []
        for w in range(writers):
            for k in range(n_examples):
                events += store.history(f"bench/q{k}/g", f"ann{w}")
    stored = Counter((e.annotator, e.example_uid, e.new[0]) for e in events if e.field == "relevant_keys")
    lost = sum(1 for a in acked if (a[1], a[2], a[3]) not in stored)
    duplicated = sum(c - 1 for c in stored.values() if c > 1)
    by_chain: dict[tuple[str, str], list] = {}
    for e in sorted(events, key=lambda e: e.id):
        by_chain.setdefault((e.annotator, e.example_uid), []).append(e)
    lost_updates = sum(1 for chain in by_chain.values() for prev, e in zip(chain, chain[1:]) if e.old != prev.new)
    return {
        "acknowledged": len(acked),
        "stored": sum(stored.values()),
        "lost": lost,
        "duplicated": duplicated,
        "lost_updates": lost_updates,
        "stale_refused": sum(int(a[4]) for a in acked),
        "r1_killed": procs["r1"].returncode == -signal.SIGKILL,
        "seconds": elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=200, help="decisions per writer (default 200)")
    parser.add_argument("--writers", type=int, default=4, help="writer threads per replica (default 4)")
    parser.add_argument(
        "--examples", type=int, default=10, help="examples every annotator edits on both replicas (default 10)"
    )
    parser.add_argument("--db", default=None, help="postgresql:// URL of an empty database, or an SQLite file")
    args = parser.parse_args()
    server = None
    db = args.db
    if db is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location("pg_server", ROOT / "tests" / "pg_server.py")
        assert spec is not None and spec.loader is not None
        pg_server = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(pg_server)
        PostgresServer, find_bindir = pg_server.PostgresServer, pg_server.find_bindir

        bindir = find_bindir()
        if bindir is None:
            raise SystemExit("no PostgreSQL binaries found: give --db postgresql://... (or apt-get install postgresql)")
        server = PostgresServer(bindir)
        server.start()
        db = server.new_database()
    try:
        r = run(db, args.writers, args.decisions, args.examples)
    finally:
        if server is not None:
            server.stop()
    where = "PostgreSQL" if db.startswith("postgres") else "SQLite"
    print(
        f"2 replicas x {args.writers} writers x {args.decisions} decisions over {args.examples} examples on {where};"
        " replica 1 SIGKILLed midway"
    )
    for k, v in r.items():
        print(f"{k:>14}: {v:.1f}" if isinstance(v, float) else f"{k:>14}: {v}")
    print(f"    throughput: {r['stored'] / r['seconds']:.0f} decisions/s")


if __name__ == "__main__":
    main()
