#!/usr/bin/env python3
"""failover.py — the failover acceptance run, repeated (docs/replication.md#failover-under-writes).

Starts on 127.0.0.1 one graphd primary, two replicas and three Redis Sentinels (Debian's
redis-sentinel; quorum 2, down-after --down-after ms, failover-timeout 10 s), waits until every
Sentinel lists the two replicas and the two other Sentinels, then for each round:

  1. falkordb-py through redis-py's Sentinel(...).master_for() writes 50 unique ids to the
     primary Sentinel names, `kill -9`s it, and writes until 20 more succeed
     (Tests/clients/sentinel_failover.py's run_round), each write followed by WAIT 1 1000 in
     rounds of mode `wait`, not in rounds of mode `nowait` (the modes alternate);
  2. the time from the kill to a Sentinel's +switch-master event is taken from that Sentinel's
     own Pub/Sub, and the time to the client's first successful write from the client;
  3. the killed server is started again with --sentinel: it must come back as a replica of the
     new primary, its link up, its ids equal to the new primary's; its graphd_diverged_records
     (writes it had that the new primary never got, set aside) is reported.

A Sentinel that took part in a failover starts no other one for the same primary within
2 × failover-timeout, so rounds start at least 21 s apart (20 rounds: about 9 minutes).

Prints one JSON line per round and a summary (medians of the two times; acknowledged writes
missing per mode), writes it all to --out, and exits 1 if a write acknowledged with WAIT 1 >= 1
went missing, a restarted primary did not end equal to the new one, or a Sentinel entered TILT.

  .build/client-venv/bin/python Benchmarks/failover.py --graphd .build/release/graphd --rounds 20
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "clients"))
import redis  # noqa: E402
from sentinel_failover import run_round  # noqa: E402


FAILOVER_TIMEOUT_SECONDS = 10


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:
            pass
        time.sleep(0.05)
    raise SystemExit(f"timed out after {seconds} s waiting for {what}")


def info(port):
    """INFO replication as redis-py parses it (numbers as numbers)."""
    return redis.Redis(port=port, socket_timeout=2).info("replication")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphd", required=True)
    parser.add_argument("--sentinel", default="redis-sentinel")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--down-after", type=int, default=2000)
    parser.add_argument("--out", default="failover.json")
    parser.add_argument("--keep", action="store_true", help="keep the data directories and logs (kept anyway on a failure)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="graphd-failover-")
    ports = [free_port() for _ in range(3)]
    sentinel_ports = [free_port() for _ in range(3)]
    sentinel_list = ",".join(f"127.0.0.1:{p}" for p in sentinel_ports)
    servers = {}

    def start(index, replica_of=None):
        extra = ["--replica-of", f"127.0.0.1:{replica_of}"] if replica_of else []
        log = open(os.path.join(work, f"graphd-{ports[index]}.log"), "a")
        servers[ports[index]] = subprocess.Popen(
            [args.graphd, "serve", "--port", str(ports[index]), "--data", os.path.join(work, f"data-{index}"),
             "--sentinel", sentinel_list, "--sentinel-name", "g"] + extra, stdout=log, stderr=log)
        wait_until(lambda: redis.Redis(port=ports[index]).ping(), 60, f"graphd on {ports[index]}")

    sentinels = []
    try:
        start(0)
        start(1, ports[0])
        start(2, ports[0])
        for port in sentinel_ports:
            config = os.path.join(work, f"sentinel-{port}.conf")
            with open(config, "w") as f:
                f.write(f"port {port}\nbind 127.0.0.1\ndaemonize no\ndir {work}\n"
                        f"sentinel monitor g 127.0.0.1 {ports[0]} 2\n"
                        f"sentinel down-after-milliseconds g {args.down_after}\n"
                        f"sentinel failover-timeout g {FAILOVER_TIMEOUT_SECONDS * 1000}\nsentinel parallel-syncs g 1\n")
            log = open(os.path.join(work, f"sentinel-{port}.log"), "w")
            sentinels.append(subprocess.Popen([args.sentinel, config], stdout=log, stderr=log))
        for port in sentinel_ports:
            s = redis.Redis(port=port, decode_responses=True)
            wait_until(lambda: len(s.sentinel_sentinels("g")) == 2 and len(s.sentinel_slaves("g")) == 2, 60,
                       "Sentinel discovery (replicas from INFO, Sentinels from hellos)")

        rounds, next_id, failed = [], 1, False
        watcher = redis.Redis(port=sentinel_ports[0], decode_responses=True)
        last_kill = None
        for number in range(args.rounds):
            mode = "wait" if number % 2 == 0 else "nowait"
            # A Sentinel that started or voted in a failover starts no other one for the same
            # primary within 2 × failover-timeout (Sentinel's anti-flapping delay): the next
            # kill waits that out, so each round times a failover, not the delay.
            if last_kill is not None:
                wait_until(lambda: time.monotonic() - last_kill > 2 * FAILOVER_TIMEOUT_SECONDS + 1, 60,
                           "Sentinel's delay between failovers")
            host, primary_port = watcher.sentinel_get_master_addr_by_name("g")
            primary_port = int(primary_port)
            switched = {}
            pubsub = watcher.pubsub()
            pubsub.subscribe("+switch-master")

            def listen():
                for message in pubsub.listen():
                    if message["type"] == "message":
                        switched["at"] = time.monotonic()
                        return
            thread = threading.Thread(target=listen, daemon=True)
            thread.start()
            report = run_round(sentinel_ports, servers[primary_port].pid, "g", mode, next_id)
            servers[primary_port].wait()
            next_id = report.pop("next_id")
            thread.join(timeout=30)
            pubsub.close()
            killed = report.pop("killed_at")
            last_kill = killed
            report["switch_master_after_kill_seconds"] = round(switched["at"] - killed, 3) if "at" in switched else None
            # The old primary comes back through Sentinel, as a replica of the new one.
            _, new_port = watcher.sentinel_get_master_addr_by_name("g")
            new_port = int(new_port)
            start(ports.index(primary_port))
            wait_until(lambda: info(primary_port).get("master_link_status") == "up"
                       and int(info(primary_port).get("master_port", 0)) == new_port, 60, "the old primary's rejoining")
            query = "MATCH (i:Item) RETURN i.id ORDER BY i.id"
            rows = lambda port: redis.Redis(port=port).execute_command("GRAPH.RO_QUERY", "ids", query)[1]
            try:
                wait_until(lambda: rows(primary_port) == rows(new_port), 30, "equal data")
                report["rejoined_equal"] = True
            except SystemExit:
                report["rejoined_equal"] = False
            report["diverged_records_total"] = int(info(primary_port).get("graphd_diverged_records", -1))
            # Before the next kill, every Sentinel must see the rejoined server as a healthy replica.
            for port in sentinel_ports:
                s = redis.Redis(port=port, decode_responses=True)
                wait_until(lambda: all("s_down" not in r["flags"] for r in s.sentinel_slaves("g")), 60,
                           "the Sentinels' view of the rejoined replica")
            report["round"] = number + 1
            print(json.dumps(report), flush=True)
            rounds.append(report)
            failed = failed or report["waited_missing"] > 0 or not report["rejoined_equal"]

        tilts = sum(open(os.path.join(work, f"sentinel-{p}.log")).read().count("+tilt") for p in sentinel_ports)
        def median(key, mode=None):
            values = [r[key] for r in rounds if r[key] is not None and (mode is None or r["mode"] == mode)]
            return statistics.median(values) if values else None
        summary = {
            "rounds": len(rounds),
            "down_after_ms": args.down_after,
            "median_kill_to_switch_master_seconds": median("switch_master_after_kill_seconds"),
            "median_kill_to_first_write_seconds": median("first_write_after_kill_seconds"),
            "waited_writes_missing": sum(r["waited_missing"] for r in rounds if r["mode"] == "wait"),
            "unwaited_acknowledged_missing": sum(r["acknowledged_missing"] for r in rounds if r["mode"] == "nowait"),
            "all_rejoined_equal": all(r["rejoined_equal"] for r in rounds),
            "sentinel_tilts": tilts,
            "cores": os.cpu_count(),
        }
        print(json.dumps({"summary": summary}), flush=True)
        with open(args.out, "w") as f:
            json.dump({"rounds": rounds, "summary": summary}, f, indent=2)
        sys.exit(1 if failed or tilts else 0)
    except BaseException as stop:
        if not (isinstance(stop, SystemExit) and stop.code == 0):
            args.keep = True  # a failure's logs are what explains it
        raise
    finally:
        for process in sentinels + list(servers.values()):
            process.kill()
            process.wait()
        if args.keep:
            print(f"data directories and logs kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
