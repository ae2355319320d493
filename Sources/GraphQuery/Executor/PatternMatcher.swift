// PatternMatcher.swift — runs a MATCH step's pattern operators depth-first for one input row,
// handing each complete match on as soon as it is found: scans and seeks bind a start node,
// expansions walk adjacency lists (undirected = outgoing then incoming, a self-loop once).

import GraphStore

extension ExecutionContext {
    /// Hands every extension of `row` that satisfies `operators[index...]` to `emit`, which
    /// returns false to stop the search (a LIMIT was reached). Returns false once stopped.
    func match(_ operators: [PatternOperator], _ index: Int, _ row: inout Row,
               _ emit: (Row) throws(QueryError) -> Bool) throws(QueryError) -> Bool {
        guard index < operators.count else { return try emit(row) }
        switch operators[index] {
        case .allNodesScan(let slot):
            for node in withGraph({ $0.nodeIDs() }) {
                try watchdog.tick()
                row[slot] = .node(node)
                guard try match(operators, index + 1, &row, emit) else { return false }
            }
        case .labelScan(let slot, let label):
            guard let nodes = withGraph({ g -> [NodeID]? in
                guard let id = g.labelID(named: label) else { return nil }
                return g.nodeIDs(withLabel: id)
            }) else { return true }
            for node in nodes {
                try watchdog.tick()
                row[slot] = .node(node)
                guard try match(operators, index + 1, &row, emit) else { return false }
            }
        case .idSeek(let slot, let expression, let inList):
            // `id(n) = value` holds for the node with that id, compared as numbers (1.0 finds
            // node 1); `id(n) IN list` for each node whose id the list holds, once, in id order
            // (as a scan would find them).
            let value = try evaluate(expression, row)
            var ids: [NodeID]
            if inList {
                switch value {
                case .null: return true
                case .list(let values): ids = values.compactMap(Self.nodeID)
                default:
                    // Not a list: the filter's own error (`IN` needs a list).
                    _ = try evaluate(.binary(.in, .literal(.integer(0)), expression), row)
                    return true
                }
                if ids.count > 1 { ids = Array(Set(ids)).sorted() }
            } else {
                guard let id = Self.nodeID(value) else { return true }
                ids = [id]
            }
            for id in ids where withGraph({ $0.contains(id) }) {
                row[slot] = .node(id)
                guard try match(operators, index + 1, &row, emit) else { return false }
            }
        case .propertyListSeek(let slot, let label, let key, let expression):
            guard let labelID = labelID(label) else { return true }
            // Each listed value's nodes by the index (a superset-free union: `x IN list` is
            // `x = e` for some element); without an index, or with no list, every node of the
            // label, as a scan would read them. The IN conjunct that follows decides.
            var nodes: [NodeID]? = nil
            if let keyID = propertyKeyID(key), withGraph({ $0.hasIndex(label: labelID, key: keyID) }),
               case .list(let values) = try evaluate(expression, row) {
                var found = Set<NodeID>()
                for value in values where !value.isNull {
                    guard let stored = value.storable else { continue }
                    found.formUnion(withGraph { $0.nodeIDs(withLabel: labelID, key: keyID, equalTo: stored) })
                }
                nodes = found.sorted()
            }
            for node in nodes ?? withGraph({ $0.nodeIDs(withLabel: labelID) }) {
                try watchdog.tick()
                row[slot] = .node(node)
                guard try match(operators, index + 1, &row, emit) else { return false }
            }
        case .propertySeek(let slot, let label, let key, let expression):
            guard let keyID = propertyKeyID(key) else { return true }
            let value = try evaluate(expression, row)
            // Null equals nothing; a node or relationship is never a stored property value.
            guard !value.isNull, let stored = value.storable else { return true }
            guard let label else {
                for node in withGraph({ $0.nodeIDs(key: keyID, equalTo: stored) }) {
                    try watchdog.tick()
                    row[slot] = .node(node)
                    guard try match(operators, index + 1, &row, emit) else { return false }
                }
                return true
            }
            guard let labelID = labelID(label) else { return true }
            // Under a unique index (an app's user id) the one node, without building a list.
            let unique = withGraph { g -> NodeID?? in
                g.isUniquelyIndexed(label: labelID, key: keyID) ? .some(g.firstNodeID(withLabel: labelID, key: keyID, equalTo: stored)) : nil
            }
            if let unique {
                guard let node = unique else { return true }
                row[slot] = .node(node)
                return try match(operators, index + 1, &row, emit)
            }
            for node in withGraph({ $0.nodeIDs(withLabel: labelID, key: keyID, equalTo: stored) }) {
                row[slot] = .node(node)
                guard try match(operators, index + 1, &row, emit) else { return false }
            }
        case .argument(let slot):
            switch row[slot] {
            case .null: return true
            case .node: return try match(operators, index + 1, &row, emit)
            default: throw RuntimeValue.typeMismatch(expected: "Node", row[slot])
            }
        case .nodeFilter(let slot, let labels, let properties):
            guard case .node(let node) = row[slot] else { return true }
            for label in labels {
                guard hasLabel(node, label) else { return true }
            }
            guard try propertiesMatch(properties, of: row[slot], row) else { return true }
            return try match(operators, index + 1, &row, emit)
        case .relationshipFilter(let slot, let properties):
            guard try propertiesMatch(properties, of: row[slot], row) else { return true }
            return try match(operators, index + 1, &row, emit)
        case .variableExpand(let from, let relationshipSlot, let to, let types, let direction, let toIsBound,
                             let min, let max, let properties, let exclude, let binds):
            guard case .node(let start) = row[from] else { return true }
            if toIsBound, !row[to].isNode { return true }
            var excluded: Set<RelationshipID> = []
            for slot in exclude {
                if case .relationship(let r) = row[slot] { excluded.insert(r.id) }
                if case .list(let list) = row[slot] {
                    for case .relationship(let r) in list { excluded.insert(r.id) }
                }
            }
            let typeIDs = typeIDs(types)
            var path: [Relationship] = []
            return try walk(from: start, depth: 0, path: &path, row: &row, settings: (relationshipSlot, to, typeIDs, direction, toIsBound, min, max, properties, excluded, binds)) { (r: inout Row) throws(QueryError) -> Bool in
                try match(operators, index + 1, &r, emit)
            }
        case .filter(let predicate):
            guard try evaluate(predicate, row) == .bool(true) else { return true }
            return try match(operators, index + 1, &row, emit)
        case .reverseList(let slot):
            guard case .list(let list) = row[slot] else { return try match(operators, index + 1, &row, emit) }
            let walked = row[slot]
            row[slot] = .list(list.reversed())
            defer { row[slot] = walked }
            return try match(operators, index + 1, &row, emit)
        case .bindPath(let slot, let nodeSlots, let relationshipSlots):
            guard case .node(let first) = row[nodeSlots[0]] else { return true }
            var nodes = [first], relationships: [Relationship] = []
            for (i, relationshipSlot) in relationshipSlots.enumerated() {
                switch row[relationshipSlot] {
                case .relationship(let r):
                    relationships.append(r)
                    guard case .node(let next) = row[nodeSlots[i + 1]] else { return true }
                    nodes.append(next)
                case .list(let list):
                    for case .relationship(let r) in list {
                        relationships.append(r)
                        nodes.append(r.otherEnd(from: nodes[nodes.count - 1]))
                    }
                default: return true
                }
            }
            row[slot] = .path(nodes: nodes, relationships: relationships)
            return try match(operators, index + 1, &row, emit)
        case .shortestPath(let step):
            return try shortestPath(step, operators, index, &row, emit)
        case .followList(let from, let relationshipSlot, let to, let types, let direction, let toIsBound, let min, let max, let reversed):
            guard case .node(let start) = row[from], case .list(let list) = row[relationshipSlot] else { return true }
            guard list.count >= min, max.map({ list.count <= $0 }) ?? true else { return true }
            let allowed = types.isEmpty ? nil : Set(typeIDs(types))
            var current = start
            for element in reversed ? list.reversed() : list {
                guard case .relationship(let r) = element, allowed?.contains(r.type) ?? true else { return true }
                switch direction {
                case .leftToRight: guard r.start == current else { return true }; current = r.end
                case .rightToLeft: guard r.end == current else { return true }; current = r.start
                case .either:
                    guard r.start == current || r.end == current else { return true }
                    current = r.otherEnd(from: current)
                }
            }
            if toIsBound {
                guard row[to] == .node(current) else { return true }
                return try match(operators, index + 1, &row, emit)
            }
            row[to] = .node(current)
            return try match(operators, index + 1, &row, emit)
        case .adjacencyCheck(let from, let to, let types, let direction):
            guard case .node(let start) = row[from], case .node(let end) = row[to],
                  adjacent(start, end, types, direction) else { return true }
            return try match(operators, index + 1, &row, emit)
        case .expand(let from, let relationshipSlot, let to, let types, let direction, let toIsBound,
                     let relationshipIsBound, let exclude, let bindsRelationship):
            guard case .node(let start) = row[from] else { return true }
            if toIsBound, !row[to].isNode { return true }
            let typeIDs = typeIDs(types)
            let directions: [Direction] = switch direction {
            case .leftToRight: [.outgoing]
            case .rightToLeft: [.incoming]
            case .either: [.outgoing, .incoming]
            }
            // Both ends bound (ExpandInto): only the entries naming the far node, found by
            // binary search in the sorted list, instead of the whole list. So too when the
            // far node is new but pinned by a unique index (`-(b:User {id: $b})`, see pinnedEnd).
            var boundEnd: NodeID? = if toIsBound, case .node(let end) = row[to] { end } else { nil }
            if !toIsBound, index + 1 < operators.count,
               case .nodeFilter(let slot, let labels, let properties) = operators[index + 1], slot == to,
               let pinned = pinnedEnd(labels, properties, besides: (to, relationshipSlot), row) {
                guard let end = pinned else { return true }  // no node holds the value
                boundEnd = end
            }
            // A label-only filter on the far node right after (`-(f:User)`) is checked here, with
            // its label ids resolved once, instead of one more level of recursion per neighbour.
            var next = index + 1
            var farLabels: [LabelID] = []
            if next < operators.count, case .nodeFilter(let slot, let labels, let properties) = operators[next],
               slot == to, properties.isEmpty {
                for label in labels {
                    guard let id = labelID(label) else { return true }  // a label nobody has
                    farLabels.append(id)
                }
                next += 1
            }
            for way in directions {
                for type in typeIDs {
                    let list = adjacency(of: start, type: type, direction: way)
                    let positions = boundEnd.map { list.positions(ofNeighbor: $0) } ?? list.indices
                    for position in positions {
                        let neighbor = list[position]
                        // Undirected: a self-loop is in both lists of its node; take it once.
                        if direction == .either, way == .incoming, neighbor == start { continue }
                        // An outgoing entry carries its relationship; an incoming one's is looked
                        // up in the neighbour's list, and only when something reads it.
                        var id: RelationshipID? = list.hasRelationshipIDs ? list.relationship(at: position) : nil
                        if !exclude.isEmpty, clashes(start, neighbor, type, list, position, &id, exclude, row) { continue }
                        if relationshipIsBound {
                            guard case .relationship(let held) = row[relationshipSlot],
                                  held.id == resolve(&id, start, type, list, position) else { continue }
                        }
                        if toIsBound, row[to] != .node(neighbor) { continue }
                        try watchdog.tick()
                        if !farLabels.isEmpty, farLabels.contains(where: { !node(neighbor, hasLabel: $0) }) { continue }
                        row[relationshipSlot] = bindsRelationship
                            ? .relationship(Relationship(resolve(&id, start, type, list, position), type: type, from: start, to: neighbor, direction: way))
                            : .null
                        row[to] = .node(neighbor)
                        guard try match(operators, next, &row, emit) else { return false }
                    }
                }
            }
        }
        return true
    }

    /// The one node a far-node filter `(b:Label {key: value, …})` can accept, when the graph
    /// has a unique index on one of its labels and keys and the value is an integer or a string:
    /// `.some(nil)` when no node holds it, nil when the filter pins nothing (no such index,
    /// another value, a value reading `besides`). The expansion then looks for that node in its
    /// list by binary search; the filter still runs on it, so the rows are those of a walk
    /// of the whole list: FalkorDB's mutual-friends text costs a search per middle friend
    /// instead of a walk of each middle friend's friends.
    func pinnedEnd(_ labels: [String], _ properties: [(key: String, value: Expression)], besides: (Int, Int),
                   _ row: Row) -> NodeID?? {
        guard !labels.isEmpty else { return nil }
        for (key, expression) in properties {
            guard let slots = expression.referencedSlots, !slots.contains(besides.0), !slots.contains(besides.1) else { continue }
            guard let keyID = propertyKeyID(key) else { return nil }
            for label in labels {
                guard let labelID = labelID(label),
                      withGraph({ $0.isUniquelyIndexed(label: labelID, key: keyID) }) else { continue }
                // An error is the filter's to raise, on the walk (only if there is a neighbour).
                let stored: Value
                switch try? evaluate(expression, row) {
                case .integer(let i): stored = .integer(i)
                case .string(let s): stored = .string(s)
                default: return nil  // nulls, floats, lists: the filter decides, on the walk
                }
                return .some(withGraph { $0.firstNodeID(withLabel: labelID, key: keyID, equalTo: stored) })
            }
        }
        return nil
    }

    /// The relationship of entry `position` of `node`'s `list` (of `type`), looked up once.
    @inline(__always)
    func resolve(_ id: inout RelationshipID?, _ node: NodeID, _ type: RelationshipTypeID, _ list: AdjacencyList, _ position: Int) -> RelationshipID {
        if let id { return id }
        let found = withGraph { $0.incomingRelationship(of: node, type: type, in: list, at: position) }
        id = found
        return found
    }

    /// Whether the relationship of entry `position` of `node`'s `list` is one the row already
    /// holds in an `exclude` slot (openCypher's relationship uniqueness). A held relationship
    /// can only be this one if it joins the same two nodes, so the entry's own id is looked up
    /// only then.
    func clashes(_ node: NodeID, _ neighbor: NodeID, _ type: RelationshipTypeID, _ list: AdjacencyList, _ position: Int,
                 _ id: inout RelationshipID?, _ exclude: [Int], _ row: Row) -> Bool {
        for slot in exclude {
            switch row[slot] {
            case .relationship(let other):
                let sameEnds = (other.start == node && other.end == neighbor) || (other.start == neighbor && other.end == node)
                if sameEnds, other.type == type, other.id == resolve(&id, node, type, list, position) { return true }
            case .list(let held):
                let r = resolve(&id, node, type, list, position)
                if held.contains(where: { if case .relationship(let h) = $0 { h.id == r } else { false } }) { return true }
            default: break
            }
        }
        return false
    }

    /// Whether `node` has the label named `label` (false for a label the graph never saw).
    func hasLabel(_ node: NodeID, _ label: String) -> Bool {
        guard let id = labelID(label) else { return false }
        return self.node(node, hasLabel: id)
    }

    /// The id of label `label`, remembering the last few looked up (RecentNames): the graph
    /// is read only when it is not among them.
    @inline(__always)
    /// The node id a value equals as a number (`id(n) = value`), when it can be one.
    static func nodeID(_ value: RuntimeValue) -> NodeID? {
        let id: Int64
        switch value {
        case .integer(let i): id = i
        case .double(let d) where d.rounded() == d && abs(d) < 1e18: id = Int64(d)
        default: return nil
        }
        guard id >= 0, id <= Int64(UInt32.max) else { return nil }
        return NodeID(rawValue: UInt32(id))
    }

    func labelID(_ label: String) -> LabelID? {
        if let id = recentLabels.id(of: label) { return id }
        let id = withGraph { $0.labelID(named: label) }
        if let id { recentLabels.remember(label, id) }
        return id
    }

    /// A pattern predicate between nodes the row already binds (`exists((v)-[:FRIEND]-(x))`,
    /// what the binder turns into arguments, label checks and adjacency checks), answered on
    /// the row itself: no padded copy of the row, no matcher and its closure. nil for any
    /// other plan.
    func boundAdjacency(_ plan: [PatternOperator], _ row: Row) throws(QueryError) -> Bool? {
        for op in plan {
            switch op {
            case .argument, .adjacencyCheck: continue
            case .nodeFilter(_, _, let properties) where properties.isEmpty: continue
            default: return nil
            }
        }
        for op in plan {
            switch op {
            case .argument(let slot):
                switch slot < row.count ? row[slot] : .null {
                case .null: return false
                case .node: continue
                case let other: throw RuntimeValue.typeMismatch(expected: "Node", other)
                }
            case .nodeFilter(let slot, let labels, _):
                guard slot < row.count, case .node(let node) = row[slot] else { return false }
                for label in labels where !hasLabel(node, label) { return false }
            case .adjacencyCheck(let from, let to, let types, let direction):
                guard from < row.count, to < row.count, case .node(let start) = row[from], case .node(let end) = row[to],
                      adjacent(start, end, types, direction) else { return false }
            default:
                return nil
            }
        }
        return true
    }

    /// Whether a relationship of one of `types` joins `start` to `end` in `direction`: a binary
    /// search of `start`'s sorted lists, no walk.
    func adjacent(_ start: NodeID, _ end: NodeID, _ types: [String], _ direction: PatternDirection) -> Bool {
        let ids = typeIDs(types)
        return withGraph { g in
            for type in ids {
                if direction != .rightToLeft, g.adjacency(of: start, type: type, direction: .outgoing).contains(neighbor: end) { return true }
                if direction != .leftToRight, g.adjacency(of: start, type: type, direction: .incoming).contains(neighbor: end) { return true }
            }
            return false
        }
    }

    /// The type ids named by `types` (every type when empty; unknown names match nothing).
    func typeIDs(_ types: [String]) -> [RelationshipTypeID] {
        if types.count == 1, let ids = recentTypes.id(of: types[0]) { return ids }
        let ids = withGraph { graph in
            if types.isEmpty { return (0..<graph.relationshipTypeNames.count).map { RelationshipTypeID($0) } }
            var ids: [RelationshipTypeID] = []
            for name in types { if let id = graph.relationshipTypeID(named: name) { ids.append(id) } }
            return ids
        }
        // Only a name the graph has: a type created later in the run must still be found.
        if types.count == 1, !ids.isEmpty { recentTypes.remember(types[0], ids) }
        return ids
    }

    /// The deepest variable-length path the depth-first walk follows (one stack frame a hop).
    static let maximumPathLength = 1000

    typealias WalkSettings = (relationship: Int, to: Int, types: [RelationshipTypeID], direction: PatternDirection,
                              toIsBound: Bool, min: Int, max: Int?, properties: [(key: String, value: Expression)],
                              excluded: Set<RelationshipID>, bindsRelationships: Bool)

    /// Depth-first over paths from `node`: emits each path of an allowed length, never using a
    /// relationship twice in one path (openCypher's relationship isomorphism).
    func walk(from node: NodeID, depth: Int, path: inout [Relationship], row: inout Row, settings: WalkSettings,
              _ next: (inout Row) throws(QueryError) -> Bool) throws(QueryError) -> Bool {
        try watchdog.tick()
        // Each hop is a stack frame: refuse paths deeper than the stack safely holds.
        guard depth <= ExecutionContext.maximumPathLength else {
            throw QueryError(.runtime, "Variable-length pattern went deeper than \(ExecutionContext.maximumPathLength) hops: give it an upper bound, e.g. *..100")
        }
        if depth >= settings.min, !settings.toIsBound || row[settings.to] == .node(node) {
            let savedTo = row[settings.to]
            row[settings.relationship] = settings.bindsRelationships ? .list(path.map { .relationship($0) }) : .null
            row[settings.to] = .node(node)
            let going = try next(&row)
            row[settings.to] = savedTo
            guard going else { return false }
        }
        if let max = settings.max, depth >= max { return true }
        let directions: [Direction] = switch settings.direction {
        case .leftToRight: [.outgoing]
        case .rightToLeft: [.incoming]
        case .either: [.outgoing, .incoming]
        }
        for way in directions {
            for type in settings.types {
                let list = adjacency(of: node, type: type, direction: way)
                for position in list.indices {
                    let neighbor = list[position]
                    if settings.direction == .either, way == .incoming, neighbor == node { continue }
                    var id: RelationshipID? = list.hasRelationshipIDs ? list.relationship(at: position) : nil
                    let r = Relationship(resolve(&id, node, type, list, position), type: type, from: node, to: neighbor, direction: way)
                    if path.contains(r) || settings.excluded.contains(r.id) { continue }
                    if !settings.properties.isEmpty,
                       try !propertiesMatch(settings.properties, of: .relationship(r), row) { continue }
                    path.append(r)
                    let going = try walk(from: neighbor, depth: depth + 1, path: &path, row: &row,
                                         settings: settings, next)
                    path.removeLast()
                    guard going else { return false }
                }
            }
        }
        return true
    }

    /// True when every `key: value` of a pattern's property map equals the entity's property.
    func propertiesMatch(_ properties: [(key: String, value: Expression)], of entity: RuntimeValue, _ row: Row) throws(QueryError) -> Bool {
        for (key, expression) in properties {
            let expected = try evaluate(expression, row)
            guard RuntimeValue.equals(try property(key, of: entity), expected) == true else { return false }
        }
        return true
    }
}

extension RuntimeValue {
    var isNode: Bool { if case .node = self { return true } else { return false } }
    /// True when this is a list (a variable-length relationship's) holding `element`.
    func listContains(_ element: RuntimeValue) -> Bool {
        if case .list(let list) = self { return list.contains(element) }
        return false
    }
}
