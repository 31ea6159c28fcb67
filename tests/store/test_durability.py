"""Durability and concurrency of the label store with real processes.

A child process records decisions and prints each action id only after ``record`` returned; the
parent SIGKILLs it mid-way, reopens the file and must find every printed decision. Two writer
processes at once must both get all their decisions in (busy_timeout, one transaction each).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from ragviz.store.label_store import LabelStore
from tests.sample import ROOT

WRITER = textwrap.dedent(
    """
    import sys
    from ragviz.data.labels import Change
    from ragviz.store import LabelStore

    db, annotator, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = LabelStore(db)
    print("ready", flush=True)
    for i in range(n):
        uid = f"toy/q{i % 50}/gen"
        seen = dict(store.changes(uid, annotator)).get("relevant_keys")  # what this writer last stored there
        action = store.record(uid, annotator, [Change("relevant_keys", seen, [f"0a{i}"]), Change("review", None, "reviewed")])
        print(action, uid, i, flush=True)
    """
)


def _spawn(db: str | Path, annotator: str, n: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), annotator, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def test_sigkill_mid_way_loses_no_acknowledged_decision(db_target):
    db = db_target
    child = _spawn(db, "ann", 100_000)
    acknowledged: list[tuple[int, str, int]] = []
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        deadline = time.monotonic() + 60
        while len(acknowledged) < 300 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            action, uid, i = line.split()
            acknowledged.append((int(action), uid, int(i)))
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    assert len(acknowledged) >= 300, "the child wrote too slowly"
    # lines still in the pipe were also acknowledged: read them too
    for line in child.stdout.read().splitlines():
        action, uid, i = line.split()
        acknowledged.append((int(action), uid, int(i)))

    with LabelStore(db) as store:
        n_events = store.n_events()
        for action, uid, i in acknowledged:
            events = [e for e in store.history(uid, "ann") if e.action_id == action]
            assert [(e.field, e.new) for e in events] == [("relevant_keys", [f"0a{i}"]), ("review", "reviewed")]
        # the transaction in flight when the kill came is all-or-nothing
        assert n_events % 2 == 0 and n_events // 2 in (len(acknowledged), len(acknowledged) + 1)
        assert {uid for _, uid, _ in acknowledged} <= store.reviewed_uids("ann")
        assert len(store.reviewed_uids("ann")) == min(50, n_events // 2)


def test_two_processes_write_at_once(db_target):
    db = db_target
    LabelStore(db).close()  # schema in place; both children then only write events
    n = 150
    children = [_spawn(db, name, n) for name in ("alice", "bob")]
    outputs = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        outputs.append([line.split() for line in out.splitlines()[1:]])
    ids = [int(parts[0]) for lines in outputs for parts in lines]
    assert len(ids) == 2 * n and len(set(ids)) == 2 * n
    with LabelStore(db) as store:
        assert store.n_events() == 4 * n
        assert store.annotators() == ["alice", "bob"]
        for name in ("alice", "bob"):
            assert len(store.reviewed_uids(name)) == 50
            # the last decision on q0 of each annotator is its current value
            last_i = max(i for i in range(n) if i % 50 == 0)
            assert store.changes("toy/q0/gen", name)[-2:] == [
                ("relevant_keys", [f"0a{last_i}"]),
                ("review", "reviewed"),
            ]


def test_a_writer_holding_the_lock_makes_others_wait_not_fail(db_target):
    """Another process in an open write transaction: opening the store does not block, and
    record() waits for the lock (SQLite's busy_timeout, PostgreSQL's advisory lock) instead of failing."""
    from ragviz.store.database import open_database
    from ragviz.store.label_store import StoreError

    db = db_target
    LabelStore(db).close()
    holder = open_database(db, StoreError)
    holder.begin_write()
    child = _spawn(db, "ann", 1)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        assert child.poll() is None  # waiting on the lock
        holder.commit()
        out, err = child.communicate(timeout=30)
        assert child.returncode == 0, err
        assert len(out.split()) == 3
    finally:
        holder.close()
        if child.poll() is None:
            child.kill()
            child.wait()
