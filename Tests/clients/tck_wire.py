#!/usr/bin/env python3
# tck_wire.py — runs the openCypher TCK (Tests/Fixtures/tck) against a RUNNING graphd over the
# wire, through the official `falkordb` Python client (PyPI, unmodified; `--compact` replies,
# RESP2 or RESP3): an independent check of the whole server path (protocol, reply encoding,
# statistics, error replies, the client's decoding). It shares no code with the in-process
# runner (Tests/GraphQueryTests/TCK); it reads the .feature files itself.
#
# Per scenario: a fresh graph with a unique name (GRAPH.DELETE'd afterwards), the setup steps
# ("having executed", the named graphs in Tests/Fixtures/tck/graphs/<name>/<name>.cypher), the
# parameters (passed as falkordb-py's `params=`, which becomes a `CYPHER k=v` header), the
# query, and its expectation: rows in order, in any order, or ignoring element order for
# lists; an empty result; an error (any server error reply counts, its kind is not checked);
# side effects.
#
# Side effects are computed by DIFFING THE GRAPH STATE before and after the query (node ids,
# relationship ids, the label names in use, and (entity, key, value) property triples, read
# with `MATCH (n) RETURN id(n), labels(n), properties(n)` and the like), which is how the TCK
# defines them (its tck-api compares states); the reply's statistics count something else
# (e.g. "Properties set" counts a SET to the same value, "Labels added" counts assignments,
# not new label names), so they are not used for the expectation; they are checked against the
# diff where the two meanings meet (Runner.check_statistics), which tests the statistics the
# reply carries. "No side effects" is checked after an error too (a failed query changes nothing).
#
# Values compare as the TCK means: nodes by labels and properties, relationships by type and
# properties, paths by their nodes and relationships with directions, lists, maps, strings,
# integers and floats apart (1 is not 1.0), null, booleans, NaN. Temporal values compare by
# their ISO text (the TCK writes them as quoted strings); the client's date/time objects are
# written so. But FalkorDB's compact reply sends a temporal value as one integer of seconds, so
# when rows do not match as written and the reply holds such objects, the expected texts are
# taken through that encoding first (CompactTemporalMatcher); the summary counts those passes.
#
# Scenarios that declare a procedure ("there exists a procedure …") cannot be set up over the
# wire: they are skipped and counted apart. Tiers are the TCK README's (TCKTier in process):
# 1 core, 2 all but temporal and spatial, 3 all; the summary counts them cumulatively.
#
# Usage: tck_wire.py --port PORT [--password P] [--protocol 2|3] [--filter TEXT] [--jobs N]
#          [--timeout SECONDS] [--report FILE] [--expected-failures FILE --known-differences FILE]
#        tck_wire.py --port PORT --self-test   (scenarios with known outcomes, half of them failing)
# With --expected-failures (the in-process list) the exit status is 1 when a scenario passes
# in process (is not on that list) but fails over the wire and is not on --known-differences,
# or when a scenario on --known-differences passes over the wire (take it off then).

import argparse
import concurrent.futures
import datetime
import json
import math
import os
import re
import socket
import sys
import threading
import time

try:
    from falkordb import FalkorDB, Node, Edge, Path
    import redis
except ImportError as error:  # a clear message, not a traceback
    sys.stderr.write("tck_wire.py needs the `falkordb` package (pip install falkordb redis): %s\n" % error)
    sys.exit(2)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TCK = os.path.join(ROOT, "Tests", "Fixtures", "tck")


# --------------------------------------------------------------------------------------------
# Errors


class FeatureError(Exception):
    """A .feature file the parser cannot read."""


class ValueSyntaxError(Exception):
    """A TCK value (table cell or parameter) that does not parse."""


class ScenarioFailure(Exception):
    """A scenario's failure, with the reason reported."""


class ScenarioSkipped(Exception):
    """A scenario that cannot run over the wire (it declares a procedure)."""


# --------------------------------------------------------------------------------------------
# Gherkin


class Step:
    def __init__(self, text):
        self.text = text
        self.doc = None     # the doc string ("""…"""), if any
        self.table = None   # the table rows (lists of cells), if any

    def substituted(self, values):
        def sub(s):
            for name, value in values.items():
                s = s.replace("<%s>" % name, value)
            return s
        step = Step(sub(self.text))
        step.doc = None if self.doc is None else sub(self.doc)
        step.table = None if self.table is None else [[sub(c) for c in row] for row in self.table]
        return step


class Scenario:
    def __init__(self, file, title, example, tags, steps):
        self.file = file          # relative to features/
        self.title = title
        self.example = example    # 1-based examples row, for an expanded outline
        self.tags = tags
        self.steps = steps

    @property
    def key(self):
        return self.file + " | " + self.title + ("" if self.example is None else " | example %d" % self.example)


def table_cells(line):
    """The cells of `| a | b |`: trimmed; `\\|` is a bar, `\\\\` a backslash, `\\n` a newline."""
    cells, cell, i = [], [], 1
    body = line.strip()
    if not body.endswith("|"):
        raise FeatureError("table row without a closing bar: %r" % line)
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            cell.append({"|": "|", "\\": "\\", "n": "\n"}.get(n, "\\" + n))
            i += 2
            continue
        if c == "|":
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(c)
        i += 1
    return cells


STEP_KEYWORDS = ("Given ", "When ", "Then ", "And ", "But ")


def parse_feature(text, file):
    """Every scenario of a feature file, outlines expanded once per Examples row."""
    lines = text.replace("\r\n", "\n").split("\n")
    scenarios = []
    background = []
    current = None          # dict(title, outline, tags, steps, examples)
    in_background = False
    in_examples = False
    pending_tags = []
    i = 0

    def finish():
        nonlocal current
        if current is None:
            return
        steps = background + current["steps"]
        if current["outline"]:
            examples = current["examples"]
            if not examples:
                raise FeatureError("%s: outline %r without examples" % (file, current["title"]))
            header = examples[0]
            for n, row in enumerate(examples[1:], start=1):
                values = dict(zip(header, row))
                title = Step(current["title"]).substituted(values).text
                scenarios.append(Scenario(file, title, n, current["tags"], [s.substituted(values) for s in steps]))
        else:
            scenarios.append(Scenario(file, current["title"], None, current["tags"], steps))
        current = None

    def last_step():
        target = background if in_background else (current["steps"] if current else None)
        if not target:
            raise FeatureError("%s:%d: a table or doc string without a step" % (file, i))
        return target[-1]

    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            pending_tags += line.split()
            continue
        if line.startswith("Feature:"):
            pending_tags = []
            continue
        if line.startswith("Background:"):
            finish()
            in_background, in_examples = True, False
            continue
        m = re.match(r"(Scenario Outline|Scenario Template|Scenario):\s*(.*)$", line)
        if m:
            finish()
            in_background, in_examples = False, False
            current = {"title": m.group(2).strip(), "outline": m.group(1) != "Scenario",
                       "tags": pending_tags, "steps": [], "examples": []}
            pending_tags = []
            continue
        if line.startswith("Examples:") or line.startswith("Scenarios:"):
            in_examples = True
            pending_tags = []
            continue
        if line.startswith("|"):
            row = table_cells(line)
            if in_examples:
                current["examples"].append(row)
            else:
                step = last_step()
                step.table = (step.table or []) + [row]
            continue
        if line.startswith('"""') or line.startswith("```"):
            fence = line[:3]
            indent = len(raw) - len(raw.lstrip(" "))
            body = []
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body_line = lines[i]
                strip = min(indent, len(body_line) - len(body_line.lstrip(" ")))
                body.append(body_line[strip:])
                i += 1
            if i >= len(lines):
                raise FeatureError("%s: unterminated doc string" % file)
            i += 1
            last_step().doc = "\n".join(body)
            continue
        for keyword in STEP_KEYWORDS:
            if line.startswith(keyword):
                step = Step(line[len(keyword):])
                if in_background:
                    background.append(step)
                elif current is not None:
                    current["steps"].append(step)
                else:
                    raise FeatureError("%s:%d: a step outside a scenario" % (file, i))
                break
        else:
            raise FeatureError("%s:%d: line not understood: %r" % (file, i, line))
    finish()
    return scenarios


def load_scenarios():
    features = os.path.join(TCK, "features")
    files = []
    for directory, _, names in os.walk(features):
        for name in names:
            if name.endswith(".feature"):
                files.append(os.path.relpath(os.path.join(directory, name), features))
    scenarios = []
    for file in sorted(files):
        with open(os.path.join(features, file), encoding="utf-8") as f:
            scenarios += parse_feature(f.read(), file)
    return scenarios


# --------------------------------------------------------------------------------------------
# Tiers: the same definition as the TCK README and the in-process TCKTier (a scan of the
# scenario's query texts, setup included).

TEMPORAL = re.compile(r"(?i)\b(date|time|datetime|localtime|localdatetime|duration|point|distance)(\.\w+)?\s*\(")
LEVEL2 = [re.compile(p) for p in (
    r"(?i)\boptional\s+match\b", r"(?i)\bremove\b", r"(?i)\bunion\b", r"(?i)\bcall\b", r"(?i)\bcase\b",
    r"(?i)\bforeach\b", r"(?i)\b(all)?shortestpath\b", r"(?i)\breduce\s*\(", r"(?i)\bexists\b",
    r"(?i)\b(any|all|none|single)\s*\(\s*\w+\s+in\b", r"(?i)\[\s*\w+\s+in\b", r"\[\s*\(",
    r"(?i)\b\w+\s*=\s*\(\s*\w*\s*(:\w+)*\s*(\{[^}]*\})?\s*\)\s*(-|<)",
    r"(?i)\b(nodes|relationships|length)\s*\(",
    r"(?i)(where|and|or|not|xor)\s*\(\s*\w*\s*(:\w+)*\s*\)\s*(-|<)",
)]


def tier_of(scenario):
    text = "\n".join(s.doc for s in scenario.steps if s.doc is not None)
    if TEMPORAL.search(text):
        return 3
    if any(p.search(text) for p in LEVEL2):
        return 2
    return 1


# --------------------------------------------------------------------------------------------
# The TCK's value syntax: `1`, `1.0`, `'a'`, `[1, 2]`, `{k: 1}`, `(:L {k: 1})`, `[:T {k: 1}]`,
# `<(:A)-[:T]->(:B)>`, `null`, `true`, `NaN`, read into Python values (for parameters) and the
# graph-value classes below (for expected rows).


class ExpectedNode:
    def __init__(self, labels, properties):
        self.labels, self.properties = labels, properties


class ExpectedRelationship:
    def __init__(self, type, properties):
        self.type, self.properties = type, properties


class ExpectedPath:
    def __init__(self, start, hops):
        self.start = start
        self.hops = hops  # [(ExpectedRelationship, forward, ExpectedNode)]


NUMBER = re.compile(r"[-+]?(0x[0-9a-fA-F]+|0o[0-7]+|(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)")


class ValueReader:
    def __init__(self, text):
        self.s, self.i = text, 0

    def fail(self, what):
        raise ValueSyntaxError("%s at %d in %r" % (what, self.i, self.s))

    def space(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\n\r":
            self.i += 1

    def peek(self):
        self.space()
        return self.s[self.i] if self.i < len(self.s) else ""

    def expect(self, c):
        if self.peek() != c:
            self.fail("expected %r" % c)
        self.i += 1

    def accept(self, c):
        if self.peek() == c:
            self.i += 1
            return True
        return False

    def whole(self):
        value = self.value()
        if self.peek() != "":
            self.fail("trailing text")
        return value

    def value(self):
        c = self.peek()
        if c == "'":
            return self.string()
        if c == "[":
            return self.list_or_relationship()
        if c == "{":
            return self.map()
        if c == "(":
            return self.node()
        if c == "<":
            return self.path()
        return self.scalar()

    def string(self):
        self.expect("'")
        out = []
        while self.i < len(self.s):
            c = self.s[self.i]
            self.i += 1
            if c == "\\" and self.i < len(self.s):
                n = self.s[self.i]
                self.i += 1
                out.append({"n": "\n", "t": "\t", "r": "\r"}.get(n, n))
            elif c == "'":
                return "".join(out)
            else:
                out.append(c)
        self.fail("unterminated string")

    def name(self):
        self.space()
        if self.accept("`"):
            end = self.s.find("`", self.i)
            if end < 0:
                self.fail("unterminated `name`")
            out, self.i = self.s[self.i:end], end + 1
            return out
        m = re.compile(r"\w+").match(self.s, self.i)
        if not m:
            self.fail("expected a name")
        self.i = m.end()
        return m.group(0)

    def scalar(self):
        self.space()
        m = re.compile(r"[-+]?[A-Za-z]+").match(self.s, self.i)
        if m:
            word = m.group(0)
            lower = word.lower()
            table = {"null": None, "true": True, "false": False, "nan": math.nan,
                     "inf": math.inf, "+inf": math.inf, "infinity": math.inf, "+infinity": math.inf,
                     "-inf": -math.inf, "-infinity": -math.inf}
            if lower in table:
                self.i = m.end()
                return table[lower]
        m = NUMBER.match(self.s, self.i)
        if not m:
            self.fail("value not understood")
        self.i = m.end()
        text = m.group(0)
        body = text.lstrip("+-")
        sign = -1 if text.startswith("-") else 1
        if body.startswith("0x"):
            return sign * int(body[2:], 16)
        if body.startswith("0o"):
            return sign * int(body[2:], 8)
        if "." in body or "e" in body or "E" in body:
            return float(text)
        return int(text)

    def list_or_relationship(self):
        self.expect("[")
        if self.peek() == ":":
            return self.relationship_body()
        items = []
        if self.accept("]"):
            return items
        while True:
            items.append(self.value())
            if not self.accept(","):
                break
        self.expect("]")
        return items

    def relationship_body(self):
        self.expect(":")
        type = self.name()
        properties = self.map() if self.peek() == "{" else {}
        self.expect("]")
        return ExpectedRelationship(type, properties)

    def map(self):
        self.expect("{")
        out = {}
        if self.accept("}"):
            return out
        while True:
            key = self.name()
            self.expect(":")
            out[key] = self.value()
            if not self.accept(","):
                break
        self.expect("}")
        return out

    def node(self):
        self.expect("(")
        labels = []
        while self.accept(":"):
            labels.append(self.name())
        properties = self.map() if self.peek() == "{" else {}
        self.expect(")")
        return ExpectedNode(labels, properties)

    def path(self):
        self.expect("<")
        start = self.node()
        hops = []
        while not self.accept(">"):
            backward = self.accept("<")
            self.expect("-")
            self.expect("[")
            relationship = self.relationship_body()
            self.expect("-")
            forward = False if backward else self.accept(">")
            if not backward and not forward:
                self.fail("an undirected hop in a path")
            hops.append((relationship, forward, self.node()))
        return ExpectedPath(start, hops)


def read_value(text):
    return ValueReader(text).whole()


# --------------------------------------------------------------------------------------------
# Canonical text: expected values and decoded client values both become one string; a cell
# matches when the strings are equal. Maps and properties sort by key, labels by name;
# `unordered` sorts list elements too (at every depth).


def iso_duration(delta):
    """A dateutil relativedelta (falkordb-py's duration) in the TCK's ISO form, e.g. P1Y2M3DT4H5M6S."""
    date_part = "".join("%d%s" % (v, u) for v, u in ((delta.years, "Y"), (delta.months, "M"), (delta.days, "D")) if v)
    seconds = delta.seconds + delta.microseconds / 1e6
    time_part = "".join("%d%s" % (v, u) for v, u in ((delta.hours, "H"), (delta.minutes, "M")) if v)
    if seconds:
        time_part += ("%d" % seconds if seconds == int(seconds) else ("%.9f" % seconds).rstrip("0")) + "S"
    text = "P" + date_part + ("T" + time_part if time_part else "")
    return text if text != "P" else "PT0S"


def iso_time_of_day(t):
    """`HH:MM`, `:SS` when there are seconds or fractions, the fraction in 3 or 6 digits: the
    form the TCK writes (Java's toString)."""
    text = "%02d:%02d" % (t.hour, t.minute)
    if t.second or t.microsecond:
        text += ":%02d" % t.second
    if t.microsecond:
        text += "." + ("%03d" % (t.microsecond // 1000) if t.microsecond % 1000 == 0 else "%06d" % t.microsecond)
    return text


def iso_offset(value):
    offset = value.utcoffset()
    if offset is None:
        return ""
    seconds = int(offset.total_seconds())
    if seconds == 0:
        return "Z"
    sign = "+" if seconds > 0 else "-"
    seconds = abs(seconds)
    return "%s%02d:%02d" % (sign, seconds // 3600, seconds % 3600 // 60) + (":%02d" % (seconds % 60) if seconds % 60 else "")


def iso_temporal(value):
    """A date, time or datetime the client decoded, as the TCK writes one (`2015-07-21`,
    `21:40:32.142`, `2015-07-21T21:40Z`)."""
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() + "T" + iso_time_of_day(value) + iso_offset(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    return iso_time_of_day(value) + iso_offset(value)


def canon(value, unordered=False):
    def c(v):
        return canon(v, unordered)

    def props(p):
        return "{" + ",".join(sorted(json.dumps(k) + ":" + c(v) for k, v in (p or {}).items())) + "}"

    def labels(names):
        return "".join(sorted(":" + n for n in (names or [])))

    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "I%d" % value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return "F" + repr(value if value != 0 else 0.0)
    if isinstance(value, str):
        return "S" + json.dumps(value)
    if isinstance(value, (list, tuple)):
        items = [c(v) for v in value]
        return "[" + ",".join(sorted(items) if unordered else items) + "]"
    if isinstance(value, dict):
        return props(value)
    if isinstance(value, ExpectedNode):
        return "(" + labels(value.labels) + props(value.properties) + ")"
    if isinstance(value, Node):
        return "(" + labels(value.labels) + props(value.properties) + ")"
    if isinstance(value, ExpectedRelationship):
        return "[:" + value.type + props(value.properties) + "]"
    if isinstance(value, Edge):
        return "[:" + str(value.relation) + props(value.properties) + "]"
    if isinstance(value, ExpectedPath):
        text = "<" + c(value.start)
        for relationship, forward, node in value.hops:
            text += ("-" if forward else "<-") + c(relationship) + ("->" if forward else "-") + c(node)
        return text + ">"
    if isinstance(value, Path):
        nodes, edges = value.nodes(), value.edges()
        if len(nodes) != len(edges) + 1:
            return "<path with %d nodes and %d relationships>" % (len(nodes), len(edges))
        text = "<" + c(nodes[0])
        for i, edge in enumerate(edges):
            forward = edge.src_node == nodes[i].id
            text += ("-" if forward else "<-") + c(edge) + ("->" if forward else "-") + c(nodes[i + 1])
        return text + ">"
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return "S" + json.dumps(iso_temporal(value))
    if type(value).__name__ == "relativedelta":
        return "S" + json.dumps(iso_duration(value))
    return "?%s:%r" % (type(value).__name__, value)


# --------------------------------------------------------------------------------------------
# Temporal values in compact replies. FalkorDB sends a datetime, date, time or duration as a type
# (13 to 16) and ONE INTEGER OF SECONDS, which falkordb-py decodes into a UTC datetime, a date, a
# time of day or a relativedelta: sub-second digits, offsets, zone names and the local/zoned
# distinction do not travel. When the rows do not match as written and the reply holds such
# values, each expected temporal text is taken through that encoding (the instant's Unix seconds
# for a datetime, a local one read as UTC; the day for a date; the time of day, offset dropped,
# for a time; for a duration its length with a month of 2,629,746 s, as FalkorDB counts it) and
# decoded as the client decodes it, and the cells compare then. The summary counts the scenarios
# that passed only so.

TIME_OF_DAY = r"(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
OFFSET = r"(Z|[+-]\d{2}:\d{2}(?::\d{2})?)?(?:\[[^\]]+\])?"
DATE_TEXT = re.compile(r"(\d{4})-(\d{2})-(\d{2})$")
TIME_TEXT = re.compile(TIME_OF_DAY + OFFSET + "$")
DATETIME_TEXT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T" + TIME_OF_DAY + OFFSET + "$")
DURATION_TEXT = re.compile(r"P(?:(-?\d+)Y)?(?:(-?\d+)M)?(?:(-?\d+)W)?(?:(-?\d+)D)?"
                           r"(?:T(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+)(?:\.(\d+))?S)?)?$")
UNIX_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def is_temporal(value):
    return isinstance(value, (datetime.datetime, datetime.date, datetime.time)) or type(value).__name__ == "relativedelta"


def has_temporal(value):
    if is_temporal(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(has_temporal(v) for v in value)
    if isinstance(value, dict):
        return any(has_temporal(v) for v in value.values())
    if isinstance(value, (Node, Edge)):
        return any(has_temporal(v) for v in (value.properties or {}).values())
    if isinstance(value, Path):
        return any(has_temporal(v) for v in value.nodes() + value.edges())
    return False


def offset_seconds(text):
    if not text or text == "Z":
        return 0
    sign = -1 if text[0] == "-" else 1
    parts = [int(p) for p in text[1:].split(":")]
    return sign * (parts[0] * 3600 + parts[1] * 60 + (parts[2] if len(parts) > 2 else 0))


def through_compact_encoding(text, like):
    """The expected temporal `text` as the client decodes it from a compact reply, for a value
    of the kind of `like` (what the client decoded); None when `text` is not of that kind."""
    try:
        if isinstance(like, datetime.datetime):
            m = DATETIME_TEXT.match(text)
            if not m:
                return None
            y, mo, d, h, mi, sec = (int(g or 0) for g in m.groups()[:6])
            local = datetime.datetime(y, mo, d, h, mi, sec, tzinfo=datetime.timezone.utc)
            seconds = int((local - UNIX_EPOCH).total_seconds()) - offset_seconds(m.group(8))
            return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)
        if isinstance(like, datetime.date):
            m = DATE_TEXT.match(text)
            return datetime.date(*(int(g) for g in m.groups())) if m else None
        if isinstance(like, datetime.time):
            m = TIME_TEXT.match(text)
            return datetime.time(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None
        m = DURATION_TEXT.match(text)
        if not m or text in ("P", "PT"):
            return None
        y, mo, w, d, h, mi, sec = (int(g or 0) for g in m.groups()[:7])
        fraction = m.group(8) or ""
        nanos = int((fraction + "000000000")[:9]) * (-1 if m.group(7) and m.group(7).startswith("-") else 1)
        total_nanos = ((h * 60 + mi) * 60 + sec) * 1_000_000_000 + nanos
        seconds, nanos = divmod(total_nanos, 1_000_000_000)
        length = float(y * 12 + mo) * 2_629_746 + float(w * 7 + d) * 86_400 + float(seconds) + float(nanos) / 1e9
        seconds = int(length) if math.isfinite(length) and abs(length) < 9e18 else 0
        from dateutil.relativedelta import relativedelta
        return relativedelta(datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc), UNIX_EPOCH)
    except (ValueError, OverflowError, OSError):
        return None


class CompactTemporalMatcher:
    """Expected values (read_value's) against decoded ones, cell by cell, with temporal texts
    taken through the compact encoding; everything else must match as canon() says."""

    def __init__(self, unordered_lists):
        self.unordered_lists = unordered_lists

    def rows(self, expected, actual, ordered):
        if len(expected) != len(actual):
            return False
        if ordered:
            return all(self.row(e, a) for e, a in zip(expected, actual))
        return self.bag(expected, actual, self.row)

    def row(self, expected, actual):
        return len(expected) == len(actual) and all(self.value(e, a) for e, a in zip(expected, actual))

    @staticmethod
    def bag(expected, actual, match):
        unused = list(actual)
        for e in expected:
            for i, a in enumerate(unused):
                if match(e, a):
                    del unused[i]
                    break
            else:
                return False
        return not unused

    def properties(self, expected, actual):
        expected, actual = expected or {}, actual or {}
        return set(expected) == set(actual) and all(self.value(expected[k], actual[k]) for k in expected)

    def value(self, e, a):
        if is_temporal(a) and isinstance(e, str):
            projected = through_compact_encoding(e, a)
            return projected is not None and canon(projected) == canon(a)
        if isinstance(e, list) and isinstance(a, list):
            if len(e) != len(a):
                return False
            if self.unordered_lists:
                return self.bag(e, a, self.value)
            return all(self.value(x, y) for x, y in zip(e, a))
        if isinstance(e, dict) and isinstance(a, dict):
            return self.properties(e, a)
        if isinstance(e, ExpectedNode) and isinstance(a, Node):
            return sorted(e.labels) == sorted(a.labels or []) and self.properties(e.properties, a.properties)
        if isinstance(e, ExpectedRelationship) and isinstance(a, Edge):
            return e.type == a.relation and self.properties(e.properties, a.properties)
        if isinstance(e, ExpectedPath) and isinstance(a, Path):
            nodes, edges = a.nodes(), a.edges()
            if len(edges) != len(e.hops) or len(nodes) != len(edges) + 1 or not self.value(e.start, nodes[0]):
                return False
            for i, (relationship, forward, node) in enumerate(e.hops):
                if (edges[i].src_node == nodes[i].id) != forward:
                    return False
                if not self.value(relationship, edges[i]) or not self.value(node, nodes[i + 1]):
                    return False
            return True
        return canon(e, self.unordered_lists) == canon(a, self.unordered_lists)


# --------------------------------------------------------------------------------------------
# Running a scenario


class Runner:
    def __init__(self, options):
        self.options = options
        self.local = threading.local()
        self.counter = 0
        self.lock = threading.Lock()
        self.named_graphs = {}

    def db(self):
        if not hasattr(self.local, "db"):
            self.local.db = FalkorDB(host=self.options.host, port=self.options.port, password=self.options.password,
                                     protocol=self.options.protocol, socket_timeout=self.options.timeout,
                                     socket_connect_timeout=self.options.timeout)
        return self.local.db

    def graph_name(self):
        with self.lock:
            self.counter += 1
            return "tck_wire_%d_%d" % (os.getpid(), self.counter)

    def named_graph(self, name):
        if name not in self.named_graphs:
            path = os.path.join(TCK, "graphs", name, name + ".cypher")
            try:
                with open(path, encoding="utf-8") as f:
                    self.named_graphs[name] = f.read()
            except OSError as error:
                raise ScenarioFailure("named graph %s missing: %s" % (name, error))
        return self.named_graphs[name]

    def run(self, scenario):
        """(None, through_compact) when the scenario passes, through_compact telling whether its
        temporal values matched only through the compact encoding; (reason, False) when it
        fails. Raises ScenarioSkipped."""
        if any(s.text.startswith("there exists a procedure") for s in scenario.steps):
            raise ScenarioSkipped("declares a procedure")
        graph = self.db().select_graph(self.graph_name())
        try:
            return None, self.steps(scenario, graph)
        except ScenarioFailure as failure:
            return str(failure), False
        finally:
            try:
                graph.delete()
            except (redis.exceptions.RedisError, OSError):
                pass  # never created (every query failed before writing), or the connection broke

    def query(self, graph, text, params=None):
        """The client's QueryResult, or raises redis's ResponseError (a server error reply).
        A client timeout, a broken connection or a reply the client cannot decode fail the
        scenario with their own reason."""
        try:
            return graph.query(text, params=params)
        except redis.exceptions.ResponseError:
            raise
        except (redis.exceptions.TimeoutError, socket.timeout):
            raise ScenarioFailure("client timeout after %ss" % self.options.timeout)
        except redis.exceptions.ConnectionError as error:
            raise ScenarioFailure("connection error: %s" % error)
        except Exception as error:  # the client could not decode the reply
            raise ScenarioFailure("client could not decode the reply: %s: %s" % (type(error).__name__, error))

    def state(self, graph):
        """The graph as the TCK counts side effects."""
        try:
            nodes = self.query(graph, "MATCH (n) RETURN id(n), labels(n), properties(n)").result_set
            relationships = self.query(graph, "MATCH ()-[r]->() RETURN id(r), properties(r)").result_set
        except redis.exceptions.ResponseError as error:
            raise ScenarioFailure("reading the graph state failed: %s" % error)
        state = {"nodes": set(), "relationships": set(), "labels": set(), "properties": set()}
        for node_id, labels, properties in nodes:
            state["nodes"].add(node_id)
            state["labels"].update(labels or [])
            for key, value in (properties or {}).items():
                state["properties"].add(("n%d" % node_id, key, canon(value)))
        for relationship_id, properties in relationships:
            state["relationships"].add(relationship_id)
            for key, value in (properties or {}).items():
                state["properties"].add(("r%d" % relationship_id, key, canon(value)))
        return state

    @staticmethod
    def effects(before, after):
        out = {}
        for kind in ("nodes", "relationships", "labels", "properties"):
            out["+" + kind] = len(after[kind] - before[kind])
            out["-" + kind] = len(before[kind] - after[kind])
        return out

    def steps(self, scenario, graph):
        params = {}
        through_compact = False
        result, error, ran = None, None, False
        effects = None
        wants_effects = any(s.text.startswith("no side effects") or s.text.startswith("the side effects should be")
                            for s in scenario.steps)
        for step in scenario.steps:
            text = step.text
            if text.startswith("an empty graph") or text.startswith("any graph"):
                continue
            if text.startswith("the ") and text.endswith(" graph"):
                self.setup(graph, self.named_graph(text[4:-6]))
            elif text.startswith("having executed"):
                self.setup(graph, step.doc or "")
            elif text.startswith("parameters are"):
                for row in step.table or []:
                    if len(row) != 2:
                        raise ScenarioFailure("parameter row not understood: %r" % row)
                    try:
                        params[row[0]] = read_value(row[1])
                    except ValueSyntaxError as e:
                        raise ScenarioFailure("parameter value not understood: %s" % e)
            elif text.startswith("executing query") or text.startswith("executing control query"):
                ran = True
                before = self.state(graph) if wants_effects else None
                try:
                    result, error = self.query(graph, step.doc or "", params or None), None
                except redis.exceptions.ResponseError as e:
                    result, error = None, e
                effects = self.effects(before, self.state(graph)) if wants_effects else None
                if result is not None and effects is not None and self.options.check_statistics:
                    self.check_statistics(result, effects)
            elif text.startswith("the result should be empty"):
                if error is not None:
                    raise ScenarioFailure("error instead of an empty result: %s" % error)
                if result is None:
                    raise ScenarioFailure("no query ran")
                if result.result_set:
                    raise ScenarioFailure("%d rows instead of none" % len(result.result_set))
            elif text.startswith("the result should be"):
                if error is not None:
                    raise ScenarioFailure("error instead of rows: %s" % error)
                if result is None:
                    raise ScenarioFailure("no query ran")
                if self.compare(result, step.table or [], ordered="in order" in text,
                                unordered_lists="ignoring element order" in text) == "temporal":
                    through_compact = True
            elif text.startswith("a ") and "should be raised" in text:
                if not ran:
                    raise ScenarioFailure("no query ran")
                if error is None:
                    raise ScenarioFailure("ran instead of raising %s" % text.split(" ")[1])
            elif text.startswith("no side effects"):
                self.check_effects(effects, [])
            elif text.startswith("the side effects should be"):
                if error is not None:
                    raise ScenarioFailure("error instead of side effects: %s" % error)
                self.check_effects(effects, step.table or [])
            else:
                raise ScenarioFailure("step not understood: %s" % text)
        return through_compact

    def setup(self, graph, text):
        try:
            self.query(graph, text)
        except redis.exceptions.ResponseError as error:
            raise ScenarioFailure("setup failed: %s" % error)

    @staticmethod
    def compare(result, table, ordered, unordered_lists):
        if not table:
            raise ScenarioFailure("no expected table")
        columns = [column[1] if isinstance(column, (list, tuple)) else column for column in result.header]
        columns = [c.decode() if isinstance(c, bytes) else c for c in columns]
        if columns != table[0]:
            raise ScenarioFailure("columns %s instead of %s" % (columns, table[0]))
        expected = []
        for row in table[1:]:
            try:
                expected.append(" | ".join(canon(read_value(cell), unordered_lists) for cell in row))
            except ValueSyntaxError as e:
                raise ScenarioFailure("expected value not understood: %s" % e)
        actual = [" | ".join(canon(v, unordered_lists) for v in row) for row in result.result_set]
        if not ordered:
            expected.sort()
            actual.sort()
        if actual != expected:
            # A temporal value the client decoded from a compact reply carries only what that
            # encoding holds: compare the expected one as far as it does (CompactTemporalMatcher).
            if any(has_temporal(v) for row in result.result_set for v in row):
                matcher = CompactTemporalMatcher(unordered_lists)
                rows = [[read_value(cell) for cell in row] for row in table[1:]]
                if matcher.rows(rows, result.result_set, ordered):
                    return "temporal"
            first = next(((a, e) for a, e in zip(actual, expected) if a != e), None)
            raise ScenarioFailure("rows differ (%d instead of %d)" % (len(actual), len(expected))
                                  + ("" if first is None else ": %s instead of %s" % first))
        return None

    @staticmethod
    def check_statistics(result, effects):
        """The reply's statistics against the graph's change, where their meanings meet: a query
        that deleted no nodes added exactly "Nodes created" of them, one that created none took
        away exactly "Nodes deleted" (relationships alike), and every new label name or property
        triple was counted in "Labels added" or "Properties set" (which also count assignments
        that add nothing new, so only the bound holds)."""
        problems = []
        for kind, created, deleted in (("nodes", result.nodes_created, result.nodes_deleted),
                                       ("relationships", result.relationships_created, result.relationships_deleted)):
            added, removed = effects["+" + kind], effects["-" + kind]
            if (deleted == 0 and added != created) or (created == 0 and removed != deleted) \
                    or added > created or removed > deleted:
                problems.append("%s created %d deleted %d for +%d -%d" % (kind, created, deleted, added, removed))
        if effects["+labels"] > result.labels_added:
            problems.append("labels added %d for %d new label names" % (result.labels_added, effects["+labels"]))
        if effects["+properties"] > result.properties_set:
            problems.append("properties set %d for %d new properties" % (result.properties_set, effects["+properties"]))
        if problems:
            raise ScenarioFailure("statistics disagree with the graph: " + "; ".join(problems))

    @staticmethod
    def check_effects(actual, table):
        if actual is None:
            raise ScenarioFailure("no query ran")
        expected = {}
        for row in table:
            if len(row) != 2 or not re.fullmatch(r"-?\d+", row[1]):
                raise ScenarioFailure("side effect row not understood: %r" % row)
            expected[row[0]] = int(row[1])
        different = sorted(k for k in set(actual) | set(expected) if actual.get(k, 0) != expected.get(k, 0))
        if different:
            raise ScenarioFailure("side effects " + ", ".join(
                "%s %d instead of %d" % (k, actual.get(k, 0), expected.get(k, 0)) for k in different))


# --------------------------------------------------------------------------------------------
# Self-test: scenarios with known outcomes, run against the server like the TCK's, so a runner
# that passes everything (or fails everything) shows. Each title says PASS or FAIL.

SELF_TEST = r'''
Feature: tck_wire.py self-test

  Background:
    Given an empty graph

  Scenario: PASS integers, floats, strings, booleans, null, NaN
    When executing query:
      """
      RETURN 1 AS i, 1.0 AS f, 0.5 AS h, "it's" AS s, true AS b, null AS n, 0.0 / 0.0 AS nan
      """
    Then the result should be, in any order:
      | i | f   | h   | s      | b    | n    | nan |
      | 1 | 1.0 | 0.5 | 'it\'s' | true | null | NaN |
    And no side effects

  Scenario: FAIL an integer is not a float
    When executing query:
      """
      RETURN 1 AS x
      """
    Then the result should be, in any order:
      | x   |
      | 1.0 |

  Scenario: FAIL rows in order
    When executing query:
      """
      UNWIND [1, 2] AS x RETURN x
      """
    Then the result should be, in order:
      | x |
      | 2 |
      | 1 |

  Scenario: PASS rows in any order
    When executing query:
      """
      UNWIND [1, 2] AS x RETURN x
      """
    Then the result should be, in any order:
      | x |
      | 2 |
      | 1 |

  Scenario: FAIL list order counts
    When executing query:
      """
      RETURN [1, 2] AS l
      """
    Then the result should be, in any order:
      | l      |
      | [2, 1] |

  Scenario: PASS list order ignored when asked
    When executing query:
      """
      RETURN [1, [3, 2]] AS l
      """
    Then the result should be (ignoring element order for lists):
      | l           |
      | [[2, 3], 1] |

  Scenario: FAIL a column name
    When executing query:
      """
      RETURN 1 AS x
      """
    Then the result should be, in any order:
      | y |
      | 1 |

  Scenario: PASS nodes, relationships, paths and maps
    Given having executed:
      """
      CREATE (:A:B {k: 1, s: 'x'})-[:T {w: 2.5}]->(:C)
      """
    When executing query:
      """
      MATCH p = (a:A)-[r]->(c) RETURN a, r, p, {a: a.k, l: [c]} AS m
      """
    Then the result should be, in any order:
      | a                     | r             | p                                           | m                   |
      | (:B:A {s: 'x', k: 1}) | [:T {w: 2.5}] | <(:A:B {k: 1, s: 'x'})-[:T {w: 2.5}]->(:C)> | {l: [(:C)], a: 1} |
    And no side effects

  Scenario: FAIL a path's direction
    Given having executed:
      """
      CREATE (:A)-[:T]->(:C)
      """
    When executing query:
      """
      MATCH p = (:A)-[]->() RETURN p
      """
    Then the result should be, in any order:
      | p                   |
      | <(:A)<-[:T]-(:C)> |

  Scenario: FAIL a node's label
    Given having executed:
      """
      CREATE (:A)
      """
    When executing query:
      """
      MATCH (n) RETURN n
      """
    Then the result should be, in any order:
      | n    |
      | (:B) |

  Scenario: PASS side effects counted from the graph
    Given having executed:
      """
      CREATE (:A {k: 1}), (:A {k: 2})
      """
    When executing query:
      """
      MATCH (n:A {k: 1}) SET n.k = 1, n:L DETACH DELETE n CREATE (:N)-[:R {p: 'v'}]->(:N)
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes         | 2 |
      | -nodes         | 1 |
      | +relationships | 1 |
      | +labels        | 1 |
      | +properties    | 1 |
      | -properties    | 1 |

  Scenario: FAIL side effects
    When executing query:
      """
      CREATE ()
      """
    Then the result should be empty
    And no side effects

  Scenario: FAIL no error raised
    When executing query:
      """
      RETURN 1
      """
    Then a SyntaxError should be raised at compile time: InvalidSyntax

  Scenario: PASS an error raised
    When executing query:
      """
      RETURN 1 +
      """
    Then a SyntaxError should be raised at compile time: InvalidSyntax

  Scenario: PASS parameters sent as falkordb-py sends them
    And parameters are:
      | s | 'a"b\\\\c' |
      | m | {name: 'Alice', address: {residential: true}, l: [1, 2.5, null]} |
      | 1 | 0 |
    When executing query:
      """
      RETURN $s AS s, $m AS m, $1 AS one
      """
    Then the result should be, in any order:
      | s          | m                                                                 | one |
      | 'a"b\\\\c' | {name: 'Alice', address: {residential: true}, l: [1, 2.5, null]} | 0   |

  Scenario: FAIL an empty result
    When executing query:
      """
      RETURN 1 AS x
      """
    Then the result should be empty
'''


def temporal_self_check():
    """How many of the compact-temporal comparisons below go wrong (they need no server: the
    values are built as falkordb-py decodes types 13 to 16)."""
    from dateutil.relativedelta import relativedelta
    utc = datetime.timezone.utc
    instant = datetime.datetime(2015, 7, 21, 20, 40, 32, tzinfo=utc)
    day = relativedelta(datetime.datetime.fromtimestamp(86_400, tz=utc), UNIX_EPOCH)
    cases = [
        (instant, "2015-07-21T21:40:32.142+01:00", True), (instant, "2015-07-21T20:40:32.999Z", True),
        (instant, "2015-07-21T21:40:32.142+02:00", False), (instant, "2015-07-21T21:40:33+01:00", False),
        (instant, "2015-07-21T20:40:32", True), (instant, "2015-07-21", False),
        (datetime.date(2015, 7, 21), "2015-07-21", True), (datetime.date(2015, 7, 21), "2015-07-22", False),
        (datetime.date(2015, 7, 21), "2015-07-21T00:00Z", False),
        (datetime.time(12, 31, 14), "12:31:14.5+01:00", True), (datetime.time(12, 31, 14), "12:31:15", False),
        (day, "P1D", True), (day, "PT24H", True), (day, "P2D", False), (day, "1 day", False),
    ]
    wrong = 0
    matcher = CompactTemporalMatcher(False)
    for actual, text, want in cases:
        if matcher.value(text, actual) != want:
            wrong += 1
            print("BAD  compact temporal %r against %r should %smatch" % (text, actual, "" if want else "not "))
    return wrong


def self_test(runner):
    """0 when every self-test scenario has the outcome its title names."""
    wrong = temporal_self_check()
    for scenario in parse_feature(SELF_TEST, "self-test.feature"):
        want = scenario.title.split(" ")[0]
        reason, _ = runner.run(scenario)
        got = "PASS" if reason is None else "FAIL"
        if got != want:
            wrong += 1
        print("%s %s -> %s%s" % ("ok  " if got == want else "BAD ", scenario.title, got,
                                 "" if reason is None else " (%s)" % reason))
    print("self-test: %s" % ("all outcomes as expected" if wrong == 0 else "%d unexpected outcomes" % wrong))
    return 0 if wrong == 0 else 1


# --------------------------------------------------------------------------------------------
# Lists in expected-failures.txt's format: `<feature> | <scenario>[ | example N] -- reason`.


def read_list(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            key, _, reason = line.partition(" -- ")
            out[key.strip()] = reason
    return out


def main():
    parser = argparse.ArgumentParser(description="The openCypher TCK against a running graphd, over the wire.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--password")
    parser.add_argument("--protocol", type=int, choices=(2, 3), default=2)
    parser.add_argument("--filter", help="run only scenarios whose key contains this text")
    parser.add_argument("--report", help="write the failures here, in expected-failures.txt's format")
    parser.add_argument("--jobs", type=int, default=2, help="parallel connections (1 to 8)")
    parser.add_argument("--timeout", type=float, default=20.0, help="client timeout per command, in seconds")
    parser.add_argument("--expected-failures", help="the in-process list (Tests/Fixtures/tck/expected-failures.txt)")
    parser.add_argument("--known-differences", help="wire-only failures allowed (Tests/Fixtures/tck/wire-differences.txt)")
    parser.add_argument("--no-check-statistics", dest="check_statistics", action="store_false",
                        help="do not check the reply's statistics against the graph's change")
    parser.add_argument("--self-test", action="store_true",
                        help="run scenarios with known outcomes (some must fail) instead of the TCK")
    parser.add_argument("--verbose", action="store_true", help="print every failure as it happens")
    options = parser.parse_args()
    if not 1 <= options.jobs <= 8:
        parser.error("--jobs must be between 1 and 8")

    try:
        scenarios = [s for s in load_scenarios() if "@ignore" not in s.tags]
    except (FeatureError, OSError) as error:
        sys.stderr.write("tck_wire.py: cannot read the TCK: %s\n" % error)
        return 2
    if options.filter:
        scenarios = [s for s in scenarios if options.filter in s.key]

    runner = Runner(options)
    try:
        runner.db().connection.ping()
    except redis.exceptions.RedisError as error:
        sys.stderr.write("tck_wire.py: cannot reach graphd at %s:%d: %s\n" % (options.host, options.port, error))
        return 2

    if options.self_test:
        return self_test(runner)

    started = time.monotonic()
    outcomes = {}  # key -> ("pass"|"fail"|"skip", reason)

    def one(scenario):
        try:
            reason, through_compact = runner.run(scenario)
            if reason is None:
                return scenario.key, ("pass", "through the compact temporal encoding" if through_compact else None)
            return scenario.key, ("fail", reason)
        except ScenarioSkipped as skip:
            return scenario.key, ("skip", str(skip))
        except Exception as error:  # a runner bug must not hide the other scenarios' results
            return scenario.key, ("fail", "runner error: %s: %s" % (type(error).__name__, error))

    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        for key, outcome in pool.map(one, scenarios):
            outcomes[key] = outcome
            if options.verbose and outcome[0] == "fail":
                print("FAIL %s -- %s" % (key, outcome[1]), flush=True)

    passed, total, skipped = [0] * 4, [0] * 4, []
    failures = []
    for scenario in scenarios:
        status, reason = outcomes[scenario.key]
        if status == "skip":
            skipped.append("# skipped: %s -- %s" % (scenario.key, reason))
            continue
        tier = tier_of(scenario)
        total[tier] += 1
        if status == "pass":
            passed[tier] += 1
        else:
            failures.append(scenario.key + " -- " + " ".join(reason.split("\n"))[:160])
    failures.sort()
    if options.report:
        with open(options.report, "w", encoding="utf-8") as f:
            # The skipped scenarios follow as comments, so the file still reads as a list.
            f.write("".join(line + "\n" for line in failures + sorted(skipped)))

    cumulative = [(sum(passed[1:t + 1]), sum(total[1:t + 1])) for t in (1, 2, 3)]
    print("TCK over the wire: tier 1 %d of %d, tier 2 %d of %d, tier 3 %d of %d (skipped %d)"
          % (cumulative[0] + cumulative[1] + cumulative[2] + (len(skipped),)))
    through_compact = sum(1 for status, note in outcomes.values() if status == "pass" and note)
    print("(protocol %d, %d jobs, %.0fs; %d passed with temporal values compared only as far as the compact "
          "encoding carries them)" % (options.protocol, options.jobs, time.monotonic() - started, through_compact))

    status = 0
    if options.expected_failures:
        in_process = read_list(options.expected_failures)
        known = read_list(options.known_differences) if options.known_differences else {}
        wire_only = [line for line in failures if line.partition(" -- ")[0] not in in_process]
        unexpected = [line for line in wire_only if line.partition(" -- ")[0] not in known]
        stale = sorted(key for key in known
                       if key in outcomes and outcomes[key][0] == "pass")
        print("wire-only failures: %d (%d known)" % (len(wire_only), len(wire_only) - len(unexpected)))
        # Not a failure (the in-process test keeps its own list), but a sign one runner is off.
        for key in sorted(key for key in in_process if key in outcomes and outcomes[key][0] == "pass"):
            print("note: fails in process but passes over the wire: " + key)
        for line in unexpected:
            print("UNEXPECTED wire-only failure: " + line)
        for key in stale:
            print("PASSES over the wire, take it off the known differences: " + key)
        if unexpected or stale:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
