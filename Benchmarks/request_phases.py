#!/usr/bin/env python3
"""request_phases.py — where one client's round trip goes, from a syscall trace.

Splits each request of a one-client run into what the client's send took, the wait until the
server read it, the server's work until it sent the reply, the server's send, and the wait until
the client's recv returned; prints each phase's median and mean in microseconds.

Record the trace while a one-client load runs (graphd-bench server --clients 1, or
redis-benchmark -c 1), system-wide, for a second or so:

    perf record -a -o trace.data \\
        -e syscalls:sys_enter_sendto,syscalls:sys_exit_sendto \\
        -e syscalls:sys_enter_recvfrom,syscalls:sys_exit_recvfrom \\
        -e syscalls:sys_enter_read,syscalls:sys_exit_read -- sleep 1
    perf script -i trace.data | Benchmarks/request_phases.py [--client graphd-bench] [--server graphd]

The client must send with sendto and receive with recvfrom (graphd-bench and redis-benchmark
do); graphd reads with read and writes with sendto. Process names are perf's `comm` (15
characters at most); the server's is matched as a prefix so that a renamed binary still counts.
"""

import argparse
import re
import statistics
import sys

LINE = re.compile(r"\s*(\S+)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+syscalls:(\S+):\s*(.*)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--client", default="graphd-bench", help="the client's process name (default graphd-bench)")
    parser.add_argument("--server", default="graphd", help="prefix of the server's process name (default graphd)")
    args = parser.parse_args()

    phases = {name: [] for name in ("client send", "until server read", "server work", "server send",
                                     "until client recv", "total")}
    same_cpu = 0
    request = None
    for line in sys.stdin:
        match = LINE.match(line)
        if not match:
            continue
        comm, _, cpu, seconds, event, rest = match.groups()
        at = float(seconds) * 1e6
        if comm == args.client:
            if event == "sys_enter_sendto":
                request = {"start": at, "client cpu": cpu}
            elif request is None:
                continue
            elif event == "sys_exit_sendto" and "sent" not in request:
                request["sent"] = at
            elif event == "sys_exit_recvfrom" and "replied" in request:
                marks = [request["start"], request["sent"], request["read"], request["sending"], request["replied"], at]
                for name, (a, b) in zip(phases, zip(marks, marks[1:])):
                    phases[name].append(b - a)
                phases["total"].append(at - request["start"])
                same_cpu += request["client cpu"] == request["server cpu"]
                request = None
        elif comm.startswith(args.server) and request is not None and "sent" in request:
            if event == "sys_exit_read" and "read" not in request and not rest.startswith("0xffff"):
                request["read"], request["server cpu"] = at, cpu
            elif event == "sys_enter_sendto" and "read" in request and "sending" not in request:
                request["sending"] = at
            elif event == "sys_exit_sendto" and "sending" in request and "replied" not in request:
                request["replied"] = at

    count = len(phases["total"])
    if count == 0:
        sys.exit("no complete request in the trace: check --client and --server against perf script's names")
    print(f"{count} requests; client and server on the same CPU for {same_cpu}")
    print(f"{'phase':20} {'median µs':>10} {'mean µs':>10}")
    for name, values in phases.items():
        print(f"{name:20} {statistics.median(values):10.1f} {statistics.mean(values):10.1f}")


if __name__ == "__main__":
    main()
