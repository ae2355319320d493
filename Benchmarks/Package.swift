// swift-tools-version: 6.1
// graphd's benchmark harness: a package of its own, so `swift test` of the main package never
// builds or runs it; it depends on the main package by path and uses its library products.
import Foundation
import PackageDescription

// A path dependency's identity is its directory name ("graphd" in a clone, anything in a copy).
let mainPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "graphd-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "graphd-bench",
            dependencies: [
                .product(name: "GraphStore", package: mainPackage),
                .product(name: "GraphQuery", package: mainPackage),
                .product(name: "SocialData", package: mainPackage),
            ]
        ),
    ]
)
