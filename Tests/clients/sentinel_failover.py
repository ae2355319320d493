"""sentinel_failover.py — falkordb-py through Redis Sentinel during a failover, unmodified.

Usage: sentinel_failover.py SENTINEL_PORTS PRIMARY_PID NAME wait|nowait [FIRST_ID]

Writes unique ids with falkordb-py on a connection pool from redis-py's
Sentinel(...).master_for(NAME) (with `wait`, each write is followed by WAIT 1 1000 on the same
connection), kills the primary (kill -9 of PRIMARY_PID) after 50 writes, keeps writing through
the failover until 20 more succeed (retrying failed ones under a 30 s deadline), then reads
every id back from the new primary. Prints one JSON line: the time from the kill to the first
successful write, how many writes were acknowledged, and how many acknowledged ids the new
primary lacks (with WAIT returning >= 1, and without). Exit status 1 when an id acknowledged
with WAIT >= 1 is missing. Benchmarks/failover.py repeats it (`run_round`).
"""
import json
import os
import signal
import sys
import time

from falkordb import FalkorDB
from redis.sentinel import Sentinel


def run_round(ports, pid, name, mode, first_id=1, before=50, after_target=20, deadline_seconds=30):
    """One failover under writes; returns the report (see the module's docstring)."""
    sentinel = Sentinel([("127.0.0.1", p) for p in ports], socket_timeout=1.0)
    pool = sentinel.master_for(name, socket_timeout=2.0).connection_pool
    db = FalkorDB(connection_pool=pool)
    graph = db.select_graph("ids")
    acknowledged, waited = [], []

    def write(i):
        graph.query("CREATE (:Item {id: $id})", {"id": i})
        acknowledged.append(i)
        if mode == "wait":
            # The pool hands the same connection back (one thread): WAIT covers this write.
            if db.connection.execute_command("WAIT", 1, 1000) >= 1:
                waited.append(i)

    next_id = first_id - 1
    for _ in range(before):
        next_id += 1
        write(next_id)
    killed = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    first_success, after, errors = None, 0, 0
    deadline = killed + deadline_seconds
    while after < after_target and time.monotonic() < deadline:
        next_id += 1
        try:
            write(next_id)
        except Exception:  # the primary is gone or demoted: Sentinel's pool re-resolves it
            errors += 1
            time.sleep(0.05)
            continue
        if first_success is None:
            first_success = time.monotonic()
        after += 1
    present = set()
    for row in graph.ro_query("MATCH (i:Item) WHERE i.id >= $first RETURN i.id", {"first": first_id}).result_set:
        present.add(row[0])
    pool.disconnect()
    return {
        "mode": mode,
        "killed_at": killed,
        "first_write_after_kill_seconds": None if first_success is None else round(first_success - killed, 3),
        "acknowledged": len(acknowledged),
        "acknowledged_missing": len([i for i in acknowledged if i not in present]),
        "waited": len(waited),
        "waited_missing": len([i for i in waited if i not in present]),
        "failed_attempts": errors,
        "next_id": next_id + 1,
    }


def main():
    ports = [int(p) for p in sys.argv[1].split(",")]
    first_id = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    report = run_round(ports, int(sys.argv[2]), sys.argv[3], sys.argv[4], first_id)
    report.pop("killed_at")
    print(json.dumps(report))
    sys.exit(1 if report["waited_missing"] > 0 or report["first_write_after_kill_seconds"] is None else 0)


if __name__ == "__main__":
    main()
