#!/usr/bin/env python3
"""feed_load.py — the change feed under load, against a real graphd on loopback.

Three measurements, each checked:
  1. idle subscribers: RSS of graphd before and after N connections each SUBSCRIBE to one
     user's channel (graphd:g:user:<i>), per subscriber;
  2. delivery under fan-out: with those N subscribed, a writer sends friend requests at R/s
     (each one event on the recipient's channel); the time from sending the write to the event's
     arrival on the recipient's connection, p50/p99; every event arrives, once;
  3. a paused subscriber: one connection subscribes to graphd:g:changes and stops reading while
     E writes commit (redis-benchmark, pipelined); graphd's RSS growth and the writers' rate,
     beside the same run with nobody listening; then it reads again and must get every event,
     in token order.

Usage (from the repository root; redis-benchmark from Debian's redis-tools):
  swift build -c release --product graphd
  python3 Benchmarks/feed_load.py --graphd .build/release/graphd
"""

import argparse
import json
import os
import resource
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def encode(*words):
    out = [b"*%d\r\n" % len(words)]
    for w in words:
        b = w if isinstance(w, bytes) else str(w).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(out)


class Reader:
    """Incremental RESP2 parser over one socket's bytes."""

    def __init__(self):
        self.buf = b""

    def feed(self, data):
        self.buf += data

    def _line(self, pos):
        end = self.buf.find(b"\r\n", pos)
        return (None, pos) if end < 0 else (self.buf[pos:end], end + 2)

    def _value(self, pos):
        line, nxt = self._line(pos)
        if line is None:
            raise IndexError
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b"-"):
            return (rest.decode(), nxt) if kind == b"+" else (Exception(rest.decode()), nxt)
        if kind == b":":
            return int(rest), nxt
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None, nxt
            if len(self.buf) < nxt + n + 2:
                raise IndexError
            return self.buf[nxt:nxt + n], nxt + n + 2
        if kind == b"*":
            n = int(rest)
            items = []
            for _ in range(max(n, 0)):
                v, nxt = self._value(nxt)
                items.append(v)
            return items, nxt
        raise ValueError(f"bad RESP: {line!r}")

    def replies(self):
        out = []
        while self.buf:
            try:
                v, nxt = self._value(0)
            except IndexError:
                break
            out.append(v)
            self.buf = self.buf[nxt:]
        return out


def call(sock, reader, *words):
    sock.sendall(encode(*words))
    while True:
        got = reader.replies()
        if got:
            return got[0]
        data = sock.recv(1 << 16)
        if not data:
            raise RuntimeError("connection closed")
        reader.feed(data)


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * len(xs) + 0.5)) - 1))] if xs else 0


def start_graphd(args, directory, port):
    proc = subprocess.Popen([args.graphd, "serve", "--port", str(port), "--data", directory, "--fsync", "everysec",
                             "--max-clients", str(args.subscribers + 100)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            s = connect(port)
            if call(s, Reader(), "PING") == "PONG":
                s.close()
                return proc
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise RuntimeError("graphd did not start")


def fan_out(args, port, pid):
    control = connect(port)
    r = Reader()
    call(control, r, "GRAPH.QUERY", "g", f"UNWIND range(0, {args.subscribers - 1}) AS i CREATE (:User {{id: i}})")
    call(control, r, "GRAPH.QUERY", "g", "CREATE INDEX FOR (u:User) ON (u.id)")
    before = rss_kib(pid)
    poller = select.epoll()
    conns = {}
    for i in range(args.subscribers):
        s = connect(port)
        s.sendall(encode("SUBSCRIBE", f"graphd:g:user:{i}"))
        conns[s.fileno()] = (s, Reader(), i)
    # Every acknowledgement.
    acked = 0
    for fd, (s, rd, i) in conns.items():
        while True:
            got = rd.replies()
            if got:
                assert got[0][0] == b"subscribe", got[0]
                acked += 1
                break
            rd.feed(s.recv(4096))
    for fd in conns:
        poller.register(fd, select.EPOLLIN)
    call(control, r, "PING")  # every subscription is made: the server answered after them
    after = rss_kib(pid)
    per = (after - before) * 1024 / args.subscribers
    print(f"idle subscribers: {args.subscribers}, graphd RSS {before} → {after} KiB: {per:.0f} bytes each")

    # Friend requests at the target rate; each is one event on its recipient's channel.
    sent = {}
    latencies = []
    writer = connect(port)
    wr = Reader()
    count = int(args.rate * args.seconds)
    interval = 1.0 / args.rate
    start = time.perf_counter()
    received = 0
    duplicate = 0
    k = 0

    def drain(timeout):
        nonlocal received, duplicate
        for fd, _ in poller.poll(timeout):
            s, rd, i = conns[fd]
            rd.feed(s.recv(1 << 16))
            for msg in rd.replies():
                if isinstance(msg, list) and msg[0] == b"message":
                    event = json.loads(msg[2])
                    if event.get("type") != "friend-request":
                        continue
                    if i in sent:
                        latencies.append(time.perf_counter() - sent.pop(i))
                        received += 1
                    else:
                        duplicate += 1

    while k < count:
        due = start + k * interval
        now = time.perf_counter()
        if now < due:
            drain(due - now)
            continue
        # A pair never repeats (a request already sent makes no event).
        a = k % args.subscribers
        b = (a + 1 + k // args.subscribers) % args.subscribers
        sent[b] = time.perf_counter()
        reply = call(writer, wr, "GRAPH.QUERY", "g", f"CALL social.sendRequest({a}, {b}) YIELD outcome RETURN outcome")
        if isinstance(reply, Exception):
            raise RuntimeError(reply)
        k += 1
        drain(0)
    deadline = time.time() + 10
    while sent and time.time() < deadline:
        drain(0.05)
    elapsed = time.perf_counter() - start
    p50, p99 = percentile(latencies, 50) * 1e6, percentile(latencies, 99) * 1e6
    print(f"fan-out: {count} friend requests at {count / elapsed:.0f}/s to {args.subscribers} subscribers: "
          f"write → event p50 {p50:.0f} µs, p99 {p99:.0f} µs; {received} received, {len(sent)} missing, {duplicate} unexpected")
    ok = not sent and duplicate == 0 and received == count
    for s, _, _ in conns.values():
        s.close()
    control.close()
    writer.close()
    return ok, per, p50, p99


def bench_writes(args, port, events):
    # Its own graph: redis-benchmark may leave a few pipelined writes committing after it reports.
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-n", str(events), "-c", "8", "-P", "16", "-q",
                          "GRAPH.QUERY", "w0", "CREATE (:W)"], capture_output=True, text=True, check=True).stdout
    # "GRAPH.QUERY w CREATE (:W): 41322.31 requests per second, p50=..."
    rate = float(out.strip().split("\r")[-1].split(":")[-1].split("requests")[0].split()[-1])
    return rate


def paused(args, port, pid):
    baseline = bench_writes(args, port, args.pause_events)
    control = connect(port)
    cr = Reader()
    call(control, cr, "GRAPH.QUERY", "w", "CREATE (:Marker)")  # the graph exists before it is heard
    sub = connect(port)
    sub.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
    rd = Reader()
    sub.sendall(encode("SUBSCRIBE", "graphd:w:changes"))
    while not rd.replies():
        rd.feed(sub.recv(4096))
    def nodes():
        reply = call(control, cr, "GRAPH.QUERY", "w", "MATCH (x:W) RETURN count(x)")
        return reply[1][0][0]

    before = rss_kib(pid)
    peak = before
    proc = subprocess.Popen(["redis-benchmark", "-p", str(port), "-n", str(args.pause_events), "-c", "8", "-P", "16", "-q",
                             "GRAPH.QUERY", "w", "CREATE (:W)"], stdout=subprocess.PIPE, text=True)
    while proc.poll() is None:
        peak = max(peak, rss_kib(pid))
        time.sleep(0.05)
    out = proc.stdout.read()
    rate = float(out.strip().split("\r")[-1].split(":")[-1].split("requests")[0].split()[-1])
    growth = (peak - before) / 1024
    # redis-benchmark may send a few more than asked (whole pipelines): count what committed,
    # after its last writes have had a round trip to land.
    call(control, cr, "PING")
    expected = nodes()
    control.close()
    # Resume reading: every node-created event, tokens ascending.
    count, last, ordered = 0, 0, True
    sub.settimeout(30)
    while count < expected:
        data = sub.recv(1 << 20)
        if not data:
            break
        rd.feed(data)
        for msg in rd.replies():
            if isinstance(msg, list) and msg[0] == b"message":
                event = json.loads(msg[2])
                if event.get("type") != "node-created":
                    continue
                seq = int(event["token"].rsplit("-", 1)[1])
                ordered = ordered and seq > last
                last = seq
                count += 1
    print(f"paused subscriber: {args.pause_events} writes with one subscriber not reading: {rate:.0f}/s "
          f"(nobody listening: {baseline:.0f}/s, {100 * (1 - rate / baseline):.1f}% slower); graphd RSS grew "
          f"{growth:.1f} MiB; on resuming it received {count} of {expected} events, {'in order' if ordered else 'OUT OF ORDER'}")
    sub.close()
    return count == expected and ordered, growth, rate / baseline


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--graphd", required=True)
    p.add_argument("--port", type=int, default=6597)
    p.add_argument("--subscribers", type=int, default=10000)
    p.add_argument("--rate", type=float, default=1000)
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--pause-events", type=int, default=1000000)
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.subscribers + 200)), hard))
    if shutil.which("redis-benchmark") is None:
        sys.exit("feed_load.py needs redis-benchmark (apt-get install redis-tools)")
    directory = tempfile.mkdtemp(prefix="graphd-feed-load-")
    proc = start_graphd(args, directory, args.port)
    try:
        ok1, per, p50, p99 = fan_out(args, args.port, proc.pid)
        ok2, growth, ratio = paused(args, args.port, proc.pid)
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(directory, ignore_errors=True)
    ok = ok1 and ok2
    print("feed_load: every event checked" if ok else "feed_load: EVENTS LOST, REPEATED OR OUT OF ORDER")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
