#!/usr/bin/env python3
# falkordb_client.py — drives a running graphd with the official `falkordb` Python client
# (PyPI, unmodified), RESP2 or RESP3, and checks what the client decodes: scalars, lists,
# maps, nodes, relationships and paths in --compact form, parameters, the timeout argument,
# errors raised as exceptions, explain, profile, list_graphs, delete, copy, config_get/config_set, slowlog,
# and the full-text index helpers (create_node_fulltext_index, queryNodes, list_indices).
# Run by Tests/GraphdTests/PythonClientTests.swift: falkordb_client.py PART PORT PROTOCOL [PASSWORD]
# PART is `entities` (nodes, relationships, paths: the client resolves schema ids with
# CALL DB.LABELS() / DB.RELATIONSHIPTYPES() / DB.PROPERTYKEYS()) or `basics` (the rest).
import sys

from falkordb import FalkorDB, Node, Edge, Path
import redis

part, port, protocol = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
password = sys.argv[4] if len(sys.argv) > 4 else None
checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


db = FalkorDB(host="127.0.0.1", port=port, protocol=protocol, password=password)
g = db.select_graph("client%d_%s" % (protocol, part))

created = g.query("CREATE (:Person {name:'Ann', age:33})-[:KNOWS {since:2019}]->(:Person:Dev {name:'Ben', age:28})")
check(created.nodes_created == 2 and created.relationships_created == 1 and created.properties_set == 5,
      "CREATE statistics: %r" % created.result_set)
check(created.labels_added == 3, "labels added counts node-label assignments")

if part == "feed":
    # The change feed through the client's own redis connection, unchanged: subscribe to a user's
    # channel, write through the graph API, receive the event.
    import json
    g.query("CREATE (:User {id: 'ann'}), (:User {id: 'ben'})")
    p = db.connection.pubsub()
    p.subscribe("graphd:%s:user:ben" % g.name)
    ack = p.get_message(timeout=5)
    check(ack["type"] == "subscribe", "ack: %r" % ack)
    g.query("CALL social.sendRequest('ann', 'ben') YIELD outcome RETURN outcome")
    message = p.get_message(timeout=5)
    event = json.loads(message["data"])
    check(event["type"] == "friend-request" and event["to"] == "ben" and event["user"] == "ann", "event: %r" % message)
    token = g.query("RETURN graph.token()").result_set[0][0]
    check(event["token"] == token, "the commit's token: %r vs %r" % (event, token))
    changes = db.connection.execute_command("GRAPH.CHANGES", g.name, "SINCE", token)
    check(changes[0] == token and changes[1] == [], "nothing after the last token: %r" % changes)
    p.close()
    print("falkordb client, %s, protocol %d: %d checks passed" % (part, protocol, checks))
    sys.exit(0)

if part == "entities":
    # Nodes: the client resolves label and property ids with CALL DB.LABELS() / DB.PROPERTYKEYS().
    people = g.query("MATCH (n:Person) RETURN n ORDER BY n.name").result_set
    check(len(people) == 2, "two people")
    ann, ben = people[0][0], people[1][0]
    check(isinstance(ann, Node) and ann.labels == ["Person"] and ann.properties == {"name": "Ann", "age": 33},
          "node Ann: %r" % ann)
    check(sorted(ben.labels) == ["Dev", "Person"] and ben.properties == {"name": "Ben", "age": 28}, "node Ben: %r" % ben)

    # Relationships: type ids through CALL DB.RELATIONSHIPTYPES().
    edge = g.query("MATCH ()-[e:KNOWS]->() RETURN e").result_set[0][0]
    check(isinstance(edge, Edge) and edge.relation == "KNOWS" and edge.properties == {"since": 2019}, "edge: %r" % edge)
    check(edge.src_node == ann.id and edge.dest_node == ben.id, "edge endpoints")

    # Full-text: falkordb-py's own helper sends CREATE FULLTEXT INDEX; queryNodes goes through query().
    ft = db.select_graph("client%d_fulltext" % protocol)  # its own graph: the counts below stay
    ft.query("CREATE (:User {name:'Hayden Hong'}), (:User {name:'Ann Hang'}), (:User {name:'Hong Li'})")
    ft.create_node_fulltext_index("User", "name")
    hits = ft.query("CALL db.idx.fulltext.queryNodes('User', 'hong') YIELD node, score RETURN node, score").result_set
    check(sorted(row[0].properties["name"] for row in hits) == ["Hayden Hong", "Hong Li"]
          and all(isinstance(row[0], Node) and row[0].labels == ["User"] and row[1] == 1.0 for row in hits),
          "queryNodes: %r" % hits)
    fuzzy = ft.query("CALL db.idx.fulltext.queryNodes('User', '%hing%') YIELD node RETURN node.name ORDER BY node.name").result_set
    check(fuzzy == [["Ann Hang"], ["Hayden Hong"], ["Hong Li"]], "fuzzy queryNodes: %r" % fuzzy)
    listed = ft.list_indices().result_set
    check(any(row[0] == "User" and row[1] == ["name"] and row[2] == "FULLTEXT" for row in listed), "list_indices: %r" % listed)
    ft.drop_node_fulltext_index("User", "name")
    check(not any(row[2] == "FULLTEXT" for row in ft.list_indices().result_set), "dropped")
    ft.delete()

    # Paths.
    path = g.query("MATCH p=(:Person {name:'Ann'})-[:KNOWS]->() RETURN p").result_set[0][0]
    check(isinstance(path, Path) and path.node_count() == 2 and path.edge_count() == 1, "path: %r" % path)
    check(path.first_node().properties["name"] == "Ann" and path.last_node().properties["name"] == "Ben", "path nodes")

    # A new property key appears later: the client refreshes its cache.
    g.query("CREATE (:Person {name: 'Cy', email: 'c@x'})")
    cy = g.query("MATCH (n:Person {name: 'Cy'}) RETURN n").result_set[0][0]
    check(cy.properties == {"name": "Cy", "email": "c@x"}, "refreshed property keys: %r" % cy)
    g.delete()

else:
    # Scalars, lists and maps.
    row = g.query("RETURN 42, 'hello', 3.14, true, false, null, [1, 'two', 3.0], {k: 1, s: 'x', nested: [true]}").result_set[0]
    check(row == [42, "hello", 3.14, True, False, None, [1, "two", 3.0], {"k": 1, "s": "x", "nested": [True]}],
          "scalars: %r" % row)

    # Parameters travel in the CYPHER header, exactly as the client writes it.
    result = g.query("MATCH (n:Person) WHERE n.name = $name RETURN n.age, $lst, $m",
                     {"name": "Ann", "lst": [1, "a", None], "m": {"k": 1.5, "q": 'say "hi"'}}).result_set
    check(result == [[33, [1, "a", None], {"k": 1.5, "q": 'say "hi"'}]], "parameters: %r" % result)

    # The timeout argument (milliseconds).
    check(g.query("MATCH (n) RETURN count(n)", timeout=5000).result_set == [[2]], "query with timeout")
    check(g.ro_query("MATCH (n:Dev) RETURN n.name", timeout=5000).result_set == [["Ben"]], "ro_query with timeout")

    # Errors are exceptions with the server's message.
    for query, fragment in [("MATCH (n RETURN n", "line: 1"), ("RETURN 1/0", "Division by zero")]:
        try:
            g.query(query)
            check(False, "no error for %s" % query)
        except redis.exceptions.ResponseError as error:
            check(fragment in str(error), "error for %s: %s" % (query, error))
    try:
        g.ro_query("CREATE (:X)")
        check(False, "ro_query accepted a write")
    except redis.exceptions.ResponseError as error:
        check("read-only" in str(error), "ro_query refusal: %s" % error)

    # Reading a graph that does not exist: RO is an error, a plain read creates nothing.
    missing = db.select_graph("client%d_missing" % protocol)
    check(missing.query("MATCH (n) RETURN count(n)").result_set == [[0]], "read of a missing graph")
    check("client%d_missing" % protocol not in db.list_graphs(), "a read created no graph")

    # Configuration.
    check(db.config_get("TIMEOUT_MAX") >= 0, "config_get")
    db.config_set("RESULTSET_SIZE", 1)
    try:
        g.query("UNWIND [1, 2, 3] AS x RETURN x")
        check(False, "RESULTSET_SIZE 1 allowed 3 rows")
    except redis.exceptions.ResponseError as error:
        check("Query result has more than 1 row, the result-row limit" in str(error), "row cap error: %s" % error)
    db.config_set("RESULTSET_SIZE", -1)
    check(len(g.query("UNWIND [1, 2, 3] AS x RETURN x").result_set) == 3, "RESULTSET_SIZE -1")
    try:
        db.config_set("THREAD_COUNT", 4)
        check(False, "THREAD_COUNT was settable")
    except redis.exceptions.ResponseError as error:
        check("run-time" in str(error), "read-only config: %s" % error)

    # explain and profile: the client parses the operator tree.
    plan = g.explain("MATCH (n:Person) RETURN n")
    check(plan.structured_plan.name == "Results" and len(plan.structured_plan.children) == 1, "explain: %s" % plan)
    profile = g.profile("MATCH (n:Person) RETURN n")
    check("Records produced" in str(profile) or any(
        child.profile_stats is not None for child in profile.structured_plan.children), "profile: %s" % profile)

    # The slow log holds the queries run on this graph.
    log = g.slowlog()
    check(len(log) > 0 and all(len(entry) >= 4 for entry in log), "slowlog: %r" % log)

    # copy: an independent graph with the same content.
    copy = g.copy("client%d_copy" % protocol)
    check(copy.query("MATCH (n:Person) RETURN n.name ORDER BY n.name").result_set == [["Ann"], ["Ben"]], "copy")
    copy.delete()

    # list_graphs and delete.
    check(g.name in db.list_graphs(), "list_graphs")
    g.delete()
    check(g.name not in db.list_graphs(), "deleted")


print("falkordb client, %s, protocol %d: %d checks passed" % (part, protocol, checks))
