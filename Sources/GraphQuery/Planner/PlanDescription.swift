// PlanDescription.swift — a compact one-line-per-operator text of a logical plan, for golden
// tests now and the base of EXPLAIN later. Operators are listed in execution order.

extension LogicalPlan {
    /// One operator per line, e.g. `NodeByPropertySeek #0 :User {id}` then `Expand #0 -[:FRIEND]- #2`.
    var compactDescription: String {
        var lines: [String] = []
        for (step, _) in steps {
            switch step {
            case .match(let operators, let predicate, let isOptional, _):
                if isOptional { lines.append("Optional") }
                for op in operators {
                    switch op {
                    case .allNodesScan(let slot): lines.append("AllNodesScan #\(slot)")
                    case .labelScan(let slot, let label): lines.append("NodeByLabelScan #\(slot) :\(label)")
                    case .propertySeek(let slot, let label, let key, _):
                        lines.append("NodeByPropertySeek #\(slot) :\(label) {\(key)}")
                    case .argument(let slot): lines.append("Argument #\(slot)")
                    case .expand(let from, let rel, let to, let types, let direction, let toIsBound, _, _):
                        let typeText = types.isEmpty ? "" : ":" + types.joined(separator: "|")
                        let (left, right) = switch direction {
                        case .leftToRight: ("-", "->")
                        case .rightToLeft: ("<-", "-")
                        case .either: ("-", "-")
                        }
                        lines.append("\(toIsBound ? "ExpandInto" : "Expand") #\(from) \(left)[#\(rel)\(typeText)]\(right) #\(to)")
                    case .nodeFilter(let slot, let labels, let properties):
                        if labels.isEmpty && properties.isEmpty { continue }
                        let labelText = labels.map { ":" + $0 }.joined()
                        let keys = properties.isEmpty ? "" : " {" + properties.map(\.key).joined(separator: ", ") + "}"
                        lines.append("NodeFilter #\(slot)\(labelText)\(keys)")
                    case .relationshipFilter(let slot, let properties):
                        lines.append("RelationshipFilter #\(slot) {" + properties.map(\.key).joined(separator: ", ") + "}")
                    }
                }
                if predicate != nil { lines.append("Filter") }
            case .create(let create):
                lines.append("Create \(create.patterns.map(\.nodes.count).reduce(0, +)) nodes, "
                             + "\(create.patterns.map(\.relationships.count).reduce(0, +)) relationships")
            case .unwind(_, let slot): lines.append("Unwind #\(slot)")
            case .projection(let projection):
                var text = projection.isAggregating ? "Aggregate" : "Project"
                text += " " + projection.items.map(\.name).joined(separator: ", ")
                if projection.isDistinct { text += " DISTINCT" }
                if !projection.orderBy.isEmpty { text += " ORDER BY \(projection.orderBy.count)" }
                if projection.skip != nil { text += " SKIP" }
                if projection.limit != nil { text += " LIMIT" }
                if projection.predicate != nil { text += " WHERE" }
                lines.append(text)
            }
        }
        return lines.joined(separator: "\n")
    }
}
