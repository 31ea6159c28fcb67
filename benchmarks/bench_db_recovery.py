"""How long after PostgreSQL returns two open label stores (two app replicas' stores) write again, with no
reopening: after ``pg_ctl stop -m fast`` + ``start``, after SIGKILL of the server + start, and after a network
partition (a TCP proxy that drops every connection) heals.

    .venv/bin/python benchmarks/bench_db_recovery.py [--rounds 3] [--outage 3]

Each round: both stores write, the fault, ``--outage`` seconds in which both keep trying (each try is
refused with StoreUnavailable, after waiting up to the pool's timeout), the database back, then both try
every 0.1 s until each stored one decision. Printed per fault: the seconds from the database being back
(``pg_ctl start -w`` returned, or the proxy healed) until both stored, per round and the worst, and
whether anything refused was stored (it must not be). A throw-away server from Debian's binaries
(``tests/pg_server.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # pg_server, tcp_proxy

from pg_server import PostgresServer, find_bindir  # noqa: E402
from tcp_proxy import TcpProxy  # noqa: E402

from ragviz.store.errors import StoreUnavailable  # noqa: E402
from ragviz.store.label_store import LabelStore  # noqa: E402


def _try(store: LabelStore) -> bool:
    try:
        store.record("bench-1", "ann", [("review", None, "reviewed")], "accept")
        return True
    except StoreUnavailable:
        return False


def one_round(pg: PostgresServer, proxy: TcpProxy, fault: str, outage: float) -> tuple[float, int]:
    url = pg.new_database()
    where = url.replace(f":{pg.port}/", f":{proxy.port}/") if fault == "network partition" else url
    stores = [LabelStore(where), LabelStore(where)]
    try:
        assert all(_try(s) for s in stores)
        {"stop -m fast": pg.stop_fast, "SIGKILL": pg.kill_hard, "network partition": proxy.partition}[fault]()
        refused_stored = 0
        until = time.monotonic() + outage
        while time.monotonic() < until:
            refused_stored += sum(_try(s) for s in stores)  # each must be refused
        if fault == "network partition":
            proxy.heal()
        else:
            pg.restart()
        back = time.monotonic()
        waiting = list(stores)
        while waiting:
            if _try(waiting[0]):
                waiting.pop(0)
            else:
                time.sleep(0.1)
        took = time.monotonic() - back
        n = stores[0].n_events()
        assert n == 4 + refused_stored, f"{n} events stored, expected {4 + refused_stored}"
        return took, refused_stored
    finally:
        for s in stores:
            s.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--outage", type=float, default=3.0, help="seconds the database is away")
    args = ap.parse_args()
    bindir = find_bindir()
    if bindir is None:
        print("no PostgreSQL binaries (initdb, pg_ctl)", file=sys.stderr)
        return 2
    pg = PostgresServer(bindir)
    pg.start()
    proxy = TcpProxy(pg.port)
    try:
        for fault in ("stop -m fast", "SIGKILL", "network partition"):
            rounds = [one_round(pg, proxy, fault, args.outage) for _ in range(args.rounds)]
            times = [t for t, _ in rounds]
            stored_while_down = sum(r for _, r in rounds)
            print(
                f"{fault:>18}: both stores write again {', '.join(f'{t:.2f}' for t in times)} s after the database"
                f" returned (worst {max(times):.2f} s); stored while down: {stored_while_down};"
                f" load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    finally:
        proxy.close()
        pg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
