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

# The change feed on the same PubSub object: a user's channel, the message a friend request
# makes, a replay after a token with its position message, and the health check's PING.
import json

feed = "feed%d" % protocol
r.execute_command("GRAPH.QUERY", feed, "CREATE (:User {id: 1}), (:User {id: 2})")
start = r.execute_command("GRAPH.QUERY", feed, "RETURN graph.token()")[1][0][0]
f = r.pubsub()
f.subscribe("graphd:%s:user:2" % feed)
ack = f.get_message(timeout=5)
check((ack["type"], ack["channel"]) == ("subscribe", "graphd:%s:user:2" % feed), "feed ack: %r" % ack)
r.execute_command("GRAPH.QUERY", feed, "CALL social.sendRequest(1, 2) YIELD outcome RETURN outcome")
message = f.get_message(timeout=5)
event = json.loads(message["data"])
check(message["type"] == "message" and event["type"] == "friend-request" and event["to"] == 2 and event["user"] == 1,
      "feed message: %r" % message)
f.ping()
pong = f.get_message(timeout=5)
# RESP2 answers a subscribed PING with Redis's ["pong", ""] array; RESP3 with +PONG, which
# redis-py hands back as it does Redis's (a dict made of the string's letters).
check(pong is None or pong["type"] == "pong" or protocol == 3, "ping while subscribed: %r" % pong)
replayed = "graphd:%s:user:2@%s" % (feed, start)
f.subscribe(replayed)
got = [f.get_message(timeout=5) for _ in range(3)]
check(got[0]["type"] == "subscribe" and got[0]["channel"] == replayed, "replay ack: %r" % got)
check(got[1]["channel"] == replayed and json.loads(got[1]["data"])["token"] == event["token"], "replayed: %r" % got)
check(json.loads(got[2]["data"]) == {"type": "position", "token": event["token"]}, "position: %r" % got)
try:
    r.publish("graphd:%s:user:2" % feed, "forged")
    check(False, "a forged feed message was accepted")
except redis.exceptions.ResponseError as error:
    check("refused" in str(error), "publish refused: %s" % error)
f.close()

print("redis client, protocol %d: %d checks passed" % (protocol, checks))
