// Machine.swift — facts about the machine and the process a run records: CPU model and count,
// memory, kernel, load, resident memory (RSS) for the memory-per-friendship figure.

import Foundation
import Glibc

/// What a result file says about where it was measured.
struct MachineFacts: Codable, Sendable {
    var cpu: String
    var cores: Int
    var memoryGiB: Double
    var kernel: String
    var loadAverage: String
    var hostname: String

    static func current() -> MachineFacts {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let kb = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal") }
            .flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var uts = utsname()
        uname(&uts)
        let release = withUnsafeBytes(of: uts.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
        return MachineFacts(cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount,
                            memoryGiB: (kb / 1_048_576 * 10).rounded() / 10, kernel: release, loadAverage: load,
                            hostname: ProcessInfo.processInfo.hostName)
    }
}

/// Resident memory of this process in bytes, after returning free heap pages to the kernel, so
/// that "after load minus before" measures what the graph holds, not what the loader freed.
func residentBytes() -> Int {
    // glibc's malloc_trim is not in Swift's Glibc module; look it up (RTLD_DEFAULT is nil on Linux).
    if let symbol = dlsym(nil, "malloc_trim") {
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Prints a progress line to standard error (standard output is the report).
func progress(_ line: String) {
    FileHandle.standardError.write(Data(("· " + line + "\n").utf8))
}

/// Whether this binary was built with optimisation (figures from a debug build are meaningless).
var buildConfiguration: String {
    #if DEBUG
    return "debug"
    #else
    return "release"
    #endif
}
