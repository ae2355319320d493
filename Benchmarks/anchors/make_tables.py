#!/usr/bin/env python3
"""Markdown tables from results-<preset>.json (used to write the tables in docs/benchmarks.md)."""
import json
import sys

ORDER = ["limit", "igraph", "networkx", "redis", "falkordb", "kuzu", "duckdb"]


def f(x, nd=0):
    if x is None:
        return "–"
    if isinstance(x, (int, float)):
        if x >= 100:
            return f"{x:,.0f}"
        if x >= 10:
            return f"{x:.1f}" if nd else f"{x:.0f}"
        return f"{x:.2f}" if x < 1 else f"{x:.1f}"
    return str(x)


def lat(q):
    if not q:
        return "–"
    s = f"{f(q['p50_us'])} / {f(q['p99_us'])} / {f(q['mean_us'])}"
    if q.get("truncated_after_s"):
        s += f" (n={q['n']}, cut at {q['truncated_after_s']:.0f}s)"
    return s


def main(path):
    d = json.load(open(path))
    peers = d["peers"]
    names = [n for n in ORDER if n in peers] + [n for n in peers if n not in ORDER]
    m = d["data_meta"]["stats"]
    print(f"Data: {m['users']:,} users, {m['friendships']:,} friendships (avg degree {m['avg_degree']:.1f}, "
          f"median {m['median_degree']:.0f}, p99 {m['p99_degree']:.0f}, max {m['max_degree']}, "
          f"sampled avg clustering {m['avg_clustering_sampled']:.2f}); "
          f"{d['data_meta']['events']:,} events, {d['data_meta']['invitations']:,} invitations. "
          f"Samples: {d['sample_sizes']}.\n")
    print("Latency per call in µs, p50 / p99 / mean (client-visible wall time, includes the client library).\n")
    print("| peer | load s | memory MiB | (a) friends | (b) connections top-50 | (c) mutual | (d) audience count | "
          "(e) writes/s durable | (e) p50 µs | agree a/b/c/d |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in names:
        r = peers[n]
        q = r.get("queries", {})
        if n == "limit":
            mem = f"{r.get('csr_bytes', 0) / 2**20:.1f} (CSR)"
        elif r.get("server_pid"):
            mem = f"{f(r.get('rss_after_load_mb'))} (server RSS)"
        else:
            mem = f"{f(r.get('rss_delta_mb'))} (Δ RSS)"
        w = r.get("writes") or {}
        ag = d["agreement"].get(n, {})
        agree = "/".join("–" if not ag.get(k, {}).get("checked") else
                         ("✓" if ag[k]["mismatches"] == 0 else f"✗{ag[k]['mismatches']}") for k in "abcd")
        wps = f(w.get("per_sec"))
        if w.get("truncated_after_s"):
            wps += f" (n={w['n']})"
        print(f"| {n} | {f(r.get('load_s'))} | {mem} | {lat(q.get('a'))} | {lat(q.get('b'))} | {lat(q.get('c'))} | "
              f"{lat(q.get('d'))} | {wps} | {f(w.get('p50_us'))} | {agree} |")
    print()
    eng = [(n, peers[n]["queries"]) for n in names if "engine_p50_us" in peers[n].get("queries", {}).get("a", {})]
    if eng:
        print("Engine-reported execution time (server/engine side, excludes client + protocol), p50 / p99 µs:\n")
        print("| peer | (a) | (b) | (c) | (d) |")
        print("|---|---|---|---|---|")
        for n, q in eng:
            print(f"| {n} | " + " | ".join(f"{f(q[k].get('engine_p50_us'))} / {f(q[k].get('engine_p99_us'))}"
                                          for k in "abcd" if k in q) + " |")
        print()
    extra = []
    for n in names:
        r = peers[n]
        if r.get("writes_everysec"):
            w = r["writes_everysec"]
            extra.append(f"- {n} writes with appendfsync=everysec: {f(w['per_sec'])}/s (p50 {f(w['p50_us'])} µs)")
        if r.get("redis_benchmark"):
            for c in ("c1", "c16"):
                x = r["redis_benchmark"].get(c, {})
                extra.append(f"- {n} redis-benchmark (b) -{c[0]} {c[1:]}: {f(x.get('rps'))} req/s, latency ms "
                             f"{x.get('latency_ms')} {'errors: ' + str(x.get('errors')) if x.get('errors') else ''}")
        if r.get("alt_queries"):
            for k, q in r["alt_queries"].items():
                ag = d["agreement"][n].get(k, {})
                extra.append(f"- {n} alternative `{k}`: {lat(q)} µs, mismatches {ag.get('mismatches')}/{ag.get('checked')}")
        extra.append(f"- {n}: background CPU from other processes during the run ≈ "
                     f"{r.get('background_cpu_cores_busy_approx')} cores; worker peak RSS {r.get('worker_peak_rss_mb')} MiB"
                     + (f"; status {r.get('status')}" if r.get("status") != "ok" else "")
                     + (f"; ERROR {r.get('error')}" if r.get("error") else ""))
    print("\n".join(extra))


if __name__ == "__main__":
    main(sys.argv[1])
