// swift-tools-version: 6.1
// graphd: a social graph engine. Three layers, one way: graphd → GraphQuery → GraphStore.
// No third-party packages: stdlib, Foundation, Dispatch, Synchronization and Glibc only.
import PackageDescription

let package = Package(
    name: "graphd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GraphStore", targets: ["GraphStore"]),
        .library(name: "GraphQuery", targets: ["GraphQuery"]),
        .library(name: "SocialData", targets: ["SocialData"]),
        .executable(name: "graphd", targets: ["graphd"]),
    ],
    targets: [
        .target(name: "GraphStore"),
        .target(name: "GraphQuery", dependencies: ["GraphStore"]),
        // Bulk import (CSV, SNAP edge lists) and the synthetic social graph, for graphd and Benchmarks.
        .target(name: "SocialData", dependencies: ["GraphStore"]),
        .executableTarget(name: "graphd", dependencies: ["GraphQuery", "GraphStore", "SocialData"]),
        // Fixtures and helpers shared by the test targets (temporary directories, file bytes).
        .target(name: "GraphTestSupport", path: "Tests/GraphTestSupport"),
        .testTarget(name: "GraphStoreTests", dependencies: ["GraphStore", "GraphTestSupport"]),
        .testTarget(name: "GraphQueryTests", dependencies: ["GraphQuery", "GraphStore", "SocialData", "GraphTestSupport"],
                    resources: [.copy("Scenarios")]),
        .testTarget(name: "GraphdTests", dependencies: ["graphd", "GraphQuery", "GraphStore", "SocialData", "GraphTestSupport"]),
    ]
)
