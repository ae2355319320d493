// ImportCommand.swift — `graphd import`: reads the files (SocialData's ImportRunner) into a
// GraphBuilder, builds the graph in bulk and installs it as the new graph's snapshot with an
// empty log (DataDirectory.installGraph: atomic, a crash leaves no half graph), with a progress
// bar on a terminal and a summary at the end. Any failure leaves the data directory as it was.

import Glibc
import GraphStore
import SocialData

/// The `graphd import` subcommand.
enum ImportCommand {
    static func run(_ options: ImportOptions) -> Int32 {
        let clock = ContinuousClock()
        let started = clock.now
        let directory: DataDirectory
        do throws(StoreError) {
            directory = try DataDirectory(path: options.dataDirectory)
        } catch {
            if error.kind == .locked {
                GraphdMain.printError("graphd import: \(error.description) (import writes the data directory offline: stop the server first)")
            } else {
                GraphdMain.printError("graphd import: cannot open data directory \(options.dataDirectory): \(error.description)")
            }
            return 1
        }
        do throws(StoreError) {
            try DataDirectory.validate(options.graph)
        } catch {
            GraphdMain.printError("graphd import: \(error.description)")
            return 1
        }
        if directory.graphNames().contains(options.graph) {
            GraphdMain.printError("graphd import: graph '\(options.graph)' already exists in \(options.dataDirectory) "
                                  + "(import into a new graph, or delete it first: GRAPH.DELETE \(options.graph))")
            return 1
        }

        var plan = ImportPlan()
        plan.nodeFiles = options.nodes.map { ImportPlan.Input(name: $0.name, path: $0.path) }
        plan.relationshipFiles = options.relationships.map { ImportPlan.Input(name: $0.name, path: $0.path) }
        plan.edgeLists = options.edgeLists.map { ImportPlan.Input(name: $0.name, path: $0.path) }
        plan.edgeListLabel = options.nodeLabel
        plan.delimiter = options.delimiter
        if case .skip(let limit) = options.badRows { plan.maximumBadRows = limit }

        let showProgress = options.progress ?? Terminal.isTerminal(STDERR_FILENO)
        var bar = ImportProgressBar()
        let progress: ((ImportProgress) -> Void)? = showProgress ? { progress in
            bar.update(rows: progress.rowsRead, bytesRead: progress.bytesRead, bytesTotal: progress.bytesTotal)
        } : nil
        let runner = ImportRunner(plan: plan)
        // Nothing touches the data directory until the whole graph is built and checked.
        var summary = ImportSummary()
        let graph: Graph
        do {
            var builder = GraphBuilder()
            summary = try runner.run(into: &builder, progress: progress)
            graph = try (consume builder).build()
        } catch {
            bar.finish()
            GraphdMain.printError("graphd import: \(error)")
            GraphdMain.printError("graphd import: nothing imported; graph '\(options.graph)' is unchanged")
            return 1
        }
        do throws(StoreError) {
            try directory.installGraph(named: options.graph, graph: graph, replacing: false).close()
        } catch {
            bar.finish()
            GraphdMain.printError("graphd import: cannot install graph '\(options.graph)': \(error.description)")
            GraphdMain.printError("graphd import: nothing imported; graph '\(options.graph)' is unchanged")
            return 1
        }
        bar.finish()
        let finished = clock.now
        for problem in summary.badRows { GraphdMain.printError("graphd import: skipped \(problem.description)") }
        if summary.badRowCount > summary.badRows.count {
            GraphdMain.printError("graphd import: … and \(summary.badRowCount - summary.badRows.count) more bad rows skipped")
        }
        print(report(summary, graph: options.graph, directory: options.dataDirectory, elapsed: finished - started))
        return 0
    }

    static func report(_ summary: ImportSummary, graph: String, directory: String, elapsed: Duration) -> String {
        let milliseconds = REPLSession.milliseconds(elapsed)
        let nodes = summary.nodesByLabel.map { "\($0.label) \(ImportProgressBar.grouped($0.count))" }.joined(separator: ", ")
        let relationships = summary.relationshipsByType.map { "\($0.type) \(ImportProgressBar.grouped($0.count))" }.joined(separator: ", ")
        var text = "Imported \(ImportProgressBar.grouped(summary.nodeCount)) nodes"
        if !nodes.isEmpty { text += " (\(nodes))" }
        text += " and \(ImportProgressBar.grouped(summary.relationshipCount)) relationships"
        if !relationships.isEmpty { text += " (\(relationships))" }
        let rate = milliseconds > 0 ? Double(summary.rowsRead) / milliseconds * 1000 : 0
        text += " into graph '\(graph)' in \(ResultFormatter.formatMilliseconds(milliseconds)) (\(ImportProgressBar.compact(rate)) rows/s)."
        if summary.badRowCount > 0 { text += "\n\(summary.badRowCount) bad rows skipped." }
        text += "\nServe it: graphd serve --data \(directory)   or explore it: graphd repl --data \(directory) --graph \(graph)"
        return text
    }
}
