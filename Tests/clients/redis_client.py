#!/usr/bin/env python3
# redis_client.py — drives a running graphd with the `redis` Python client (PyPI) for the
# generic commands: PING, ECHO, INFO, CLIENT, CONFIG GET, COMMAND, SELECT, HELLO (RESP3),
# AUTH, pipelining, and GRAPH.* through execute_command.
# Run by Tests/GraphdTests/PythonClientTests.swift: redis_client.py PORT PROTOCOL [PASSWORD]
import sys

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

port, protocol = int(sys.argv[1]), int(sys.argv[2])
password = sys.argv[3] if len(sys.argv) > 3 else None
checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


if password is not None:
    # No retries: redis-py treats an authentication failure as a connection error and
    # would otherwise retry it with back-off for seconds.
    no_retry = Retry(NoBackoff(), 0)
    anonymous = redis.Redis(host="127.0.0.1", port=port, protocol=protocol, retry=no_retry)
    try:
        anonymous.ping()
        check(False, "PING answered without AUTH")
    except (redis.exceptions.AuthenticationError, redis.exceptions.ResponseError) as error:
        # RESP2 clients get NOAUTH on PING; RESP3 clients on their HELLO 3.
        check("Authentication required" in str(error) or "already authenticated" in str(error), "noauth: %s" % error)
    wrong = redis.Redis(host="127.0.0.1", port=port, protocol=protocol, password="wrong", retry=no_retry)
    try:
        wrong.ping()
        check(False, "wrong password accepted")
    except redis.exceptions.AuthenticationError as error:
        check("invalid username-password" in str(error), "wrongpass: %s" % error)

r = redis.Redis(host="127.0.0.1", port=port, protocol=protocol, password=password,
                client_name="tester", decode_responses=True)
check(r.ping() is True, "ping")
check(r.echo("hello") == "hello", "echo")
check(r.client_getname() == "tester", "client name set on connect")
check(isinstance(r.client_id(), int), "client id")
info = r.info()
check(info["redis_mode"] == "standalone" and "graphs" in info and "connected_clients" in info, "info: %r" % info)
check("total_commands_processed" in r.info("stats"), "info stats")
check(r.config_get("appendonly") == {"appendonly": "yes"}, "config get appendonly")
check(r.config_get("nosuch*") == {}, "config get unmatched")
check(r.command_count() > 5, "command count")
check(r.execute_command("SELECT", 0) in (True, "OK"), "select 0")

# GRAPH.* through the generic client, pipelined.
pipe = r.pipeline(transaction=False)
pipe.execute_command("GRAPH.QUERY", "generic%d" % protocol, "CREATE (:N {v: 1}), (:N {v: 2})")
pipe.execute_command("GRAPH.QUERY", "generic%d" % protocol, "MATCH (n:N) RETURN n.v ORDER BY n.v")
pipe.execute_command("GRAPH.LIST")
created, rows, graphs = pipe.execute()
check("Nodes created: 2" in created[0], "pipelined create: %r" % created)
check(rows[1] == [[1], [2]], "pipelined read: %r" % rows)
check("generic%d" % protocol in graphs, "graph list: %r" % graphs)
try:
    r.execute_command("GRAPH.QUERY", "generic%d" % protocol, "RETURN 1", "--bogus")
    check(False, "unknown flag accepted")
except redis.exceptions.ResponseError as error:
    check("--bogus" in str(error), "unknown flag: %s" % error)
check(r.execute_command("GRAPH.DELETE", "generic%d" % protocol) in (True, "OK"), "delete")

# Pub/Sub with redis-py's own PubSub object: acknowledgements, a channel and a pattern message,
# in RESP2 (arrays) or RESP3 (push frames), exactly as the client decodes Redis's.
p = r.pubsub()
p.subscribe("news%d" % protocol)
p.psubscribe("n*%d" % protocol)
acks = [p.get_message(timeout=5) for _ in range(2)]
check([(a["type"], a["channel"], a["data"]) for a in acks]
      == [("subscribe", "news%d" % protocol, 1), ("psubscribe", "n*%d" % protocol, 2)], "subscribe acks: %r" % acks)
publisher = redis.Redis(host="127.0.0.1", port=port, protocol=protocol, password=password, decode_responses=True)
check(publisher.publish("news%d" % protocol, "hello") == 2, "publish reaches both subscriptions")
got = [p.get_message(timeout=5) for _ in range(2)]
kinds = sorted((m["type"], m["channel"], m["data"], m.get("pattern")) for m in got)
check(kinds == [("message", "news%d" % protocol, "hello", None), ("pmessage", "news%d" % protocol, "hello", "n*%d" % protocol)],
      "messages: %r" % got)
check(publisher.pubsub_numsub("news%d" % protocol) == [("news%d" % protocol, 1)], "numsub")
p.unsubscribe()
p.punsubscribe()
p.close()

print("redis client, protocol %d: %d checks passed" % (protocol, checks))
