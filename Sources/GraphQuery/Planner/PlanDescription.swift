// PlanDescription.swift — the text of a logical plan: a compact one-line-per-operator form in
// execution order (golden tests), and the operator tree EXPLAIN and PROFILE print, root first,
// each child indented four spaces below its parent, as FalkorDB's GRAPH.EXPLAIN does.

extension LogicalPlan {
    /// One operator per line, e.g. `NodeByPropertySeek #0 :User {id}` then `Expand #0 -[:FRIEND]- #2`.
    var compactDescription: String {
        steps.flatMap { LogicalPlan.lines(of: $0.step) }.joined(separator: "\n")
    }

    /// The operator tree, root (`Results` for a query that returns rows) first, variables by name
    /// (anonymous pattern elements as `#slot`). With a profiler,
    /// each step's top operator also shows the rows it produced and the time spent in it.
    func treeDescription(profile: Profiler? = nil) -> [String] {
        var entries: [(text: String, step: Int?)] = []
        for (index, (step, _)) in steps.enumerated() {
            var lines = LogicalPlan.lines(of: step, names: index < slotNames.count ? slotNames[index] : [:])
            // The stretch feeding this aggregation runs on the batched executor (not under
            // PROFILE, which counts each step's rows).
            if profile == nil, batchPrograms[index] != nil, !lines.isEmpty { lines[lines.count - 1] += " (batched)" }
            for (i, line) in lines.enumerated() { entries.append((line, i == lines.count - 1 ? index : nil)) }
        }
        if columns != nil { entries.append(("Results", nil)) }
        return entries.reversed().enumerated().map { depth, entry in
            var text = String(repeating: " ", count: depth * 4) + entry.text
            if let profile, let step = entry.step {
                let ms = Double(profile.time[step].components.attoseconds) / 1e15
                    + Double(profile.time[step].components.seconds) * 1000
                text += " | Records produced: \(profile.rows[step]), Execution time: \(String(format3: ms)) ms"
            }
            return text
        }
    }

    static func arrow(_ direction: PatternDirection) -> (String, String) {
        switch direction {
        case .leftToRight: ("-", "->")
        case .rightToLeft: ("<-", "-")
        case .either: ("-", "-")
        }
    }

    /// The operators of one step, in execution order.
    static func lines(of step: PlanStep, names: [Int: String] = [:]) -> [String] {
        func n(_ slot: Int) -> String { names[slot] ?? "#\(slot)" }
        var lines: [String] = []
        switch step {
        case .match(let operators, let predicate, let isOptional, _):
            if isOptional { lines.append("Optional") }
            lines += operators.compactMap { line(of: $0, names: names) }
            if predicate != nil { lines.append("Filter") }
        case .create(let create):
            lines.append("Create \(create.patterns.map(\.nodes.count).reduce(0, +)) nodes, "
                         + "\(create.patterns.map(\.relationships.count).reduce(0, +)) relationships")
        case .unwind(_, let slot): lines.append("Unwind \(n(slot))")
        case .loadCSV(_, let withHeaders, let slot, _): lines.append("LoadCSV \(n(slot))\(withHeaders ? " WITH HEADERS" : "")")
        case .projection(let projection):
            var text = projection.isAggregating ? "Aggregate" : "Project"
            text += " " + projection.items.map(\.name).joined(separator: ", ")
            if projection.isDistinct { text += " DISTINCT" }
            if !projection.orderBy.isEmpty { text += " ORDER BY \(projection.orderBy.count)" }
            if projection.skip != nil { text += " SKIP" }
            if projection.limit != nil { text += " LIMIT" }
            if projection.predicate != nil { text += " WHERE" }
            if let rule = projection.rule { text += " (rule: \(rule))" }
            lines.append(text)
        case .call(let call):
            lines.append((call.isOptional ? "Optional ProcedureCall " : "ProcedureCall ") + call.name + (call.predicate != nil ? " WHERE" : "")
                         + (call.rule.map { " (rule: \($0))" } ?? ""))
        case .set(let items): lines.append("Update \(items.count) item\(items.count == 1 ? "" : "s")")
        case .remove(let items): lines.append("Remove \(items.count) item\(items.count == 1 ? "" : "s")")
        case .delete(let detach, let targets): lines.append("\(detach ? "DetachDelete" : "Delete") \(targets.count)")
        case .merge(let operators, _):
            // The operators that look for the pattern run below the Merge that creates it.
            lines += operators.compactMap { line(of: $0, names: names) }
            lines.append("Merge")
        case .schema(let command):
            let verb = command.action == .create ? "Create" : "Drop"
            lines.append("\(verb)\(command.isConstraint ? "UniqueConstraint" : "Index") :\(command.label)(\(command.key))")
        }
        return lines
    }

    static func line(of op: PatternOperator, names: [Int: String] = [:]) -> String? {
        func n(_ slot: Int) -> String { names[slot] ?? "#\(slot)" }
        switch op {
        case .allNodesScan(let slot): return "AllNodesScan \(n(slot))"
        case .labelScan(let slot, let label): return "NodeByLabelScan \(n(slot)) :\(label)"
        case .idSeek(let slot, _, _): return "NodeByIdSeek \(n(slot))"
        case .propertyListSeek(let slot, let label, let key, _): return "NodeByPropertyListSeek \(n(slot)) :\(label) {\(key)}"
        case .propertySeek(let slot, let label, let key, _): return "NodeByPropertySeek \(n(slot))\(label.map { " :" + $0 } ?? "") {\(key)}"
        case .argument(let slot): return "Argument \(n(slot))"
        case .expand(let from, let rel, let to, let types, let direction, let toIsBound, _, _, _):
            let typeText = types.isEmpty ? "" : ":" + types.joined(separator: "|")
            let (left, right) = arrow(direction)
            return "\(toIsBound ? "ExpandInto" : "Expand") \(n(from)) \(left)[\(n(rel))\(typeText)]\(right) \(n(to))"
        case .variableExpand(let from, let rel, let to, let types, let direction, let toIsBound, let min, let max, _, _, _):
            let typeText = types.isEmpty ? "" : ":" + types.joined(separator: "|")
            let (left, right) = arrow(direction)
            return "\(toIsBound ? "VarLengthExpandInto" : "VarLengthExpand") \(n(from)) \(left)[\(n(rel))\(typeText)*\(min)..\(max.map(String.init) ?? "")]\(right) \(n(to))"
        case .adjacencyCheck(let from, let to, let types, let direction):
            let typeText = types.isEmpty ? "" : ":" + types.joined(separator: "|")
            let (left, right) = arrow(direction)
            return "AdjacencyCheck \(n(from)) \(left)[\(typeText)]\(right) \(n(to))"
        case .nodeFilter(let slot, let labels, let properties):
            if labels.isEmpty && properties.isEmpty { return nil }
            let labelText = labels.map { ":" + $0 }.joined()
            let keys = properties.isEmpty ? "" : " {" + properties.map(\.key).joined(separator: ", ") + "}"
            return "NodeFilter \(n(slot))\(labelText)\(keys)"
        case .relationshipFilter(let slot, let properties):
            return "RelationshipFilter \(n(slot)) {" + properties.map(\.key).joined(separator: ", ") + "}"
        case .reverseList(let slot): return "ReverseList \(n(slot))"
        case .bindPath(let slot, _, _): return "BindPath \(n(slot))"
        case .followList(let from, let rel, let to, _, let direction, _, _, _, _):
            let (left, right) = arrow(direction)
            return "FollowList \(n(from)) \(left)[\(n(rel))*]\(right) \(n(to))"
        case .shortestPath(let step):
            let typeText = step.types.isEmpty ? "" : ":" + step.types.joined(separator: "|")
            let (left, right) = arrow(step.direction)
            let name = step.kind == .one ? "ShortestPath" : "AllShortestPaths"
            let how = step.predicate == nil && step.min <= 1 ? "" : " (every path by length)"
            return "\(name) \(n(step.from)) \(left)[\(n(step.relationship))\(typeText)*\(step.min)..\(step.max.map(String.init) ?? "")]\(right) \(n(step.to))\(how)"
        case .filter: return "Filter"
        }
    }
}

extension String {
    /// A non-negative number with three decimals, without Foundation's formatter.
    init(format3 value: Double) {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        self = "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
