// WritePosition.swift — where a connection's last write left a graph's log, and whether a
// replica has caught up with it: what WAIT and WAITAOF wait for. Every command that commits to
// a graph's log (GRAPH.QUERY and GRAPH.PROFILE that wrote, their procedures and index DDL
// included; GRAPH.COPY's destination) or removes a graph (GRAPH.DELETE, DEL) leaves one in
// the connection's session (ClientSession.lastWrite).

import GraphStore

/// A connection's last write: a graph at a sequence of one history, or a graph deleted.
struct WritePosition: Sendable, Equatable {
    var graph: String
    /// The id of the graph's history when it was written (GraphHistory.id): a replica's
    /// position counts only in that history, whatever its number.
    var history: String
    var sequence: UInt64
    /// The write removed the graph: reached once a replica no longer has it in that history.
    var deleted = false

    /// The position of the write just made to `store`: its own record when its reply waits for
    /// the record's sync (DurabilityDeferral), else the last record `store` published.
    static func after(writing store: GraphStore) -> WritePosition {
        let sequence = DurabilityDeferral.current?.lastSequence(of: store) ?? store.publishedSequence
        return WritePosition(graph: store.name, history: store.history.id, sequence: sequence)
    }

    /// The position of deleting `store`.
    static func deleting(_ store: GraphStore) -> WritePosition {
        WritePosition(graph: store.name, history: store.history.id, sequence: 0, deleted: true)
    }

    /// Whether a replica at `positions` (its graphs, as it last acknowledged them) has this
    /// write: applied (`durable: false`) or durable (`durable: true`).
    func isReached(by positions: [String: FollowerPosition], durable: Bool) -> Bool {
        let position = positions[graph]
        if deleted { return position == nil || position!.history != history }
        guard let position, position.history == history else { return false }
        return (durable ? position.durable : position.applied) >= sequence
    }
}
