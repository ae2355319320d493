#!/usr/bin/env python3
"""How far past its TIMEOUT a runaway query's error reply arrives, over the wire.

Usage: graphd serve --port 6599 --data /tmp/deadline &   (a release build, an empty directory)
       python3 Benchmarks/deadline_overshoot.py 6599

Creates graph `g` (2,000 :U nodes; a complete directed graph on 12 :V nodes), then sends each
runaway query below with TIMEOUT 100 and 500 three times and prints the worst time to the
error reply minus the timeout. Every reply must be the timeout error, or the run fails.
Loopback only.
"""
import socket, sys, time
port = int(sys.argv[1])
def send(s, *args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    s.sendall(out)
def read_reply(s):
    # enough for these replies: an error line, or a result whose end we wait for briefly
    data = s.recv(65536)
    return data
s = socket.create_connection(("127.0.0.1", port))
send(s, "GRAPH.QUERY", "g", "UNWIND range(1, 2000) AS i CREATE (:U {id: i})"); read_reply(s)
send(s, "GRAPH.QUERY", "g", "UNWIND range(1, 12) AS i CREATE (:V {i: i})"); read_reply(s)
send(s, "GRAPH.QUERY", "g", "MATCH (a:V), (b:V) WHERE a <> b CREATE (a)-[:E]->(b)"); read_reply(s)
queries = {
 "UNWIND count": "UNWIND range(1,1000000000) AS x RETURN count(x)",
 "cartesian": "MATCH (a:U), (b:U), (c:U) RETURN count(*)",
 "ORDER BY": "UNWIND range(1,100000000) AS x RETURN x ORDER BY x DESC LIMIT 1",
 "collect": "UNWIND range(1,100000000) AS x RETURN collect(x)[0]",
 "DISTINCT": "UNWIND range(1,100000000) AS x RETURN count(DISTINCT x)",
 "list build": "RETURN size(range(1, 100000000))",
 "[:E*] dense": "MATCH (a:V {i: 1})-[:E*]->(b) RETURN count(*)",
 "[:E*] paths": "MATCH p=(a:V {i: 1})-[:E*]->(b) RETURN p ORDER BY length(p) DESC LIMIT 1",
}
worst = 0
for name, q in queries.items():
    for timeout in (100, 500):
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            send(s, "GRAPH.QUERY", "g", q, "TIMEOUT", str(timeout))
            r = read_reply(s)
            dt = (time.perf_counter() - t0) * 1000
            assert r.startswith(b"-Query timed out"), r[:80]
            best = dt if best is None else max(best, dt)
        worst = max(worst, best - timeout)
        print(f"{name:12s} TIMEOUT {timeout:3d} ms: worst of 3 replies after {best:7.1f} ms (overshoot {best - timeout:5.1f} ms)")
print(f"worst overshoot: {worst:.1f} ms")
