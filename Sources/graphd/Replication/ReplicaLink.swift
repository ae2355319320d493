// ReplicaLink.swift — stub.
enum ReplicaLink {
    static func start(context: ServerContext, generation: UInt64) {}
}
