#!/usr/bin/env python3
"""replication_lag.py — how far a replica trails its primary under a steady write load.

Starts on 127.0.0.1 a graphd primary and one replica (--replica-of), then for --seconds keeps
--rate writes per second going to the primary on --connections connections (paced, pipelined a
few at a time), while a probe connection writes one node every 10 ms and times from the
write's acknowledgement to `WAIT 1 1000` returning: the moment the replica has applied it
(WAIT counts the replicas that applied this connection's last write). Reports the probes'
p50/p99, the load actually reached, each server's CPU (cores used over the run), the pulls the
replica made per second and the load average, and checks at the end that the replica holds
every node the primary does.

  swift build -c release --product graphd
  .build/client-venv/bin/python Benchmarks/replication_lag.py --graphd .build/release/graphd
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(graphd, directory, port, *extra):
    proc = subprocess.Popen([graphd, "serve", "--port", str(port), "--data", directory, *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    client = redis.Redis(port=port, socket_timeout=5)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if client.ping():
                return proc, client
        except redis.exceptions.ConnectionError:
            time.sleep(0.02)
    proc.kill()
    raise SystemExit(f"graphd on port {port} did not start")


def cpu_seconds(proc):
    """User plus system CPU time the process has used so far."""
    with open(f"/proc/{proc.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pull_calls(client):
    """How many GRAPHD.PULL the server has answered (INFO commandstats)."""
    stats = client.info("commandstats").get("cmdstat_graphd.pull", {})
    return stats.get("calls", 0) if isinstance(stats, dict) else 0


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * len(xs) + 0.5)) - 1))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphd", required=True)
    parser.add_argument("--rate", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--fsync", default="always")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="graphd-lag-")
    primary_port, replica_port = free_port(), free_port()
    primary, pclient = start(args.graphd, work + "/p", primary_port, "--fsync", args.fsync)
    replica, rclient = start(args.graphd, work + "/r", replica_port, "--fsync", args.fsync,
                             "--replica-of", f"127.0.0.1:{primary_port}")
    try:
        pclient.execute_command("GRAPH.QUERY", "g", "CREATE (:Start)")
        deadline = time.monotonic() + 30
        while rclient.info("replication").get("master_link_status") != "up" and time.monotonic() < deadline:
            time.sleep(0.05)

        stop = threading.Event()
        done = [0] * args.connections

        def load(k):
            c = redis.Redis(port=primary_port, socket_timeout=10)
            per = args.rate / args.connections
            batch = 5
            start_time = time.monotonic()
            sent = 0
            while not stop.is_set():
                due = start_time + sent / per
                now = time.monotonic()
                if now < due:
                    time.sleep(due - now)
                pipe = c.pipeline(transaction=False)
                for _ in range(batch):
                    pipe.execute_command("GRAPH.QUERY", "g", "CREATE (:W)")
                pipe.execute()
                sent += batch
                done[k] = sent

        threads = [threading.Thread(target=load, args=(k,)) for k in range(args.connections)]
        for t in threads:
            t.start()
        probe = redis.Redis(port=primary_port, socket_timeout=10)
        lags = []
        began = time.monotonic()
        cpu_began = cpu_seconds(primary), cpu_seconds(replica)
        pulls_began = pull_calls(pclient)
        while time.monotonic() - began < args.seconds:
            probe.execute_command("GRAPH.QUERY", "g", "CREATE (:Probe)")
            acked = time.perf_counter()
            if probe.execute_command("WAIT", 1, 1000) >= 1:
                lags.append(time.perf_counter() - acked)
            time.sleep(0.01)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - began
        cpu = [(cpu_seconds(p) - c) / elapsed for p, c in zip((primary, replica), cpu_began)]
        pulls = (pull_calls(pclient) - pulls_began) / elapsed
        rate = sum(done) / elapsed
        # The replica ends with every node.
        want = pclient.execute_command("GRAPH.QUERY", "g", "MATCH (n) RETURN count(n)")[1][0][0]
        deadline = time.monotonic() + 30
        have = None
        while time.monotonic() < deadline:
            have = rclient.execute_command("GRAPH.RO_QUERY", "g", "MATCH (n) RETURN count(n)")[1][0][0]
            if have == want:
                break
            time.sleep(0.05)
        print(f"replication lag: {len(lags)} probes under {rate:.0f} writes/s (--fsync {args.fsync}, "
              f"{os.cpu_count()} cores): write acknowledged → applied on the replica p50 "
              f"{percentile(lags, 50) * 1e3:.2f} ms, p99 {percentile(lags, 99) * 1e3:.2f} ms; "
              f"CPU: primary {cpu[0]:.2f}, replica {cpu[1]:.2f} cores; {pulls:.0f} pulls/s; "
              f"replica {have} of {want} nodes; load average {os.getloadavg()[0]:.2f}")
        sys.exit(0 if have == want and len(lags) > 0 else 1)
    finally:
        primary.kill()
        replica.kill()
        primary.wait()
        replica.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
