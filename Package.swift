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
        .executable(name: "graphd", targets: ["graphd"]),
    ],
    targets: [
        .target(name: "GraphStore"),
        .target(name: "GraphQuery", dependencies: ["GraphStore"]),
        .executableTarget(name: "graphd", dependencies: ["GraphQuery", "GraphStore"]),
        .testTarget(name: "GraphStoreTests", dependencies: ["GraphStore"]),
        .testTarget(name: "GraphQueryTests", dependencies: ["GraphQuery", "GraphStore"],
                    resources: [.copy("Scenarios")]),
        .testTarget(name: "GraphdTests", dependencies: ["graphd", "GraphQuery", "GraphStore"]),
    ]
)
