// SelfContainedRepositoryTests.swift — the repository stands alone: no file in it refers to a
// path outside it (a clone has nothing beside it), and its docs and comments carry no diary.

import Foundation
import GraphTestSupport
import Testing

/// Finds, in a text file of the repository, the paths that lead out of it.
///
/// A relative path (`../x`, `a/../../x`) is resolved against the directory of the file that
/// names it, which is how scripts, docs' links and `#filePath` lookups read one; it must stay
/// inside the repository. An absolute path into a home or work directory (`/work/…`, `/home/…`,
/// `/Users/…`, `/root/…`) names one machine's layout, and `shared/<folder>` names the folder
/// that sits beside the repository only on its developers' machines: both are refused wherever
/// they appear. System paths (`/tmp/…`, `/usr/bin/…`) are fine.
struct OutsideReferenceScanner {
    /// One reference that leaves the repository.
    struct Finding: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var reference: String
        var description: String { "\(file):\(line): \(reference)" }
    }

    // Each pattern's first capture is the reference; what precedes it is matched, not looked
    // behind, so the text before a path decides where the path starts.
    private let relative = try! Regex(#"((?:[A-Za-z0-9_.$-]*/)*(?:\.\./)+[A-Za-z0-9_.-]*(?:/[A-Za-z0-9_.-]+)*)"#)
    private let machine = try! Regex(#"(?:^|[^A-Za-z0-9_.$-])(/(?:work|home|Users|root)/[A-Za-z0-9_.-]+)"#)
    private let sibling = try! Regex(#"(?:^|[^A-Za-z0-9_-])(shared/(?:data|peers|tck|design|protocol|hooks|[A-Z]+\.md))"#)

    /// The references in `text`, the contents of the file at `path` (relative to the root).
    func findings(in text: Substring, path: String) -> [Finding] {
        let directory = path.split(separator: "/").dropLast().map(String.init)
        var found: [Finding] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard line.contains("/") else { continue }
            for match in line.matches(of: relative) {
                guard let reference = match.output[1].substring.map(String.init) else { continue }
                // `$HERE/../x` starts from somewhere this scan cannot see, and `/a/../x` is
                // absolute: only a path that starts from the file's own directory is resolved.
                if reference.hasPrefix("$") || reference.hasPrefix("/") { continue }
                if Self.escapes(reference, from: directory) {
                    found.append(Finding(file: path, line: index + 1, reference: reference))
                }
            }
            for pattern in [machine, sibling] {
                for match in line.matches(of: pattern) {
                    guard let reference = match.output[1].substring else { continue }
                    found.append(Finding(file: path, line: index + 1, reference: String(reference)))
                }
            }
        }
        return found
    }

    /// Whether `reference`, read from `directory` (components below the root), climbs above it.
    static func escapes(_ reference: String, from directory: [String]) -> Bool {
        var depth = directory.count
        for component in reference.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                depth -= 1
                if depth < 0 { return true }
            default: depth += 1
            }
        }
        return false
    }

    /// Every text file of the repository at `root`, as paths relative to it: hidden folders
    /// (.git, .build*, .swiftpm, virtual environments) are skipped but for `.ci`; so are build
    /// products and generated data (`__pycache__`, large or binary files).
    static func repositoryFiles(root: URL) throws -> [String] {
        let manager = FileManager.default
        var files: [String] = []
        var pending = [""]
        while let relativeDirectory = pending.popLast() {
            let directory = relativeDirectory.isEmpty ? root : root.appendingPathComponent(relativeDirectory)
            for name in try manager.contentsOfDirectory(atPath: directory.path).sorted() {
                let path = relativeDirectory.isEmpty ? name : relativeDirectory + "/" + name
                var isDirectory: ObjCBool = false
                guard manager.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue {
                    if (name.hasPrefix(".") && name != ".ci") || name == "__pycache__" { continue }
                    pending.append(path)
                } else if name != ".git" {
                    // (A `.git` file is a worktree's pointer to its main checkout, not content.)
                    files.append(path)
                }
            }
        }
        return files.sorted()
    }

    /// The findings over the whole repository at `root`.
    func scan(root: URL) throws -> [Finding] {
        var found: [Finding] = []
        for path in try Self.repositoryFiles(root: root) {
            let url = root.appendingPathComponent(path)
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            // The vendored data sets are numbers; generated CSVs and binaries are not the repository's.
            guard size <= 4 << 20, let data = try? Data(contentsOf: url), !data.contains(0),
                  let text = String(data: data, encoding: .utf8) else { continue }
            found += findings(in: text[...], path: path)
        }
        return found
    }
}

@Suite("The repository stands alone")
struct SelfContainedRepositoryTests {
    @Test("No file in the repository refers to a path outside it")
    func noReferenceLeavesTheRepository() throws {
        let root = Fixtures.repositoryRoot
        let files = try OutsideReferenceScanner.repositoryFiles(root: root)
        // The scan must see the repository, not an empty or wrong folder.
        #expect(files.contains("Package.swift") && files.contains("README.md") && files.contains(".ci/run"))
        #expect(files.contains("Tests/Fixtures/ego-facebook/facebook_combined.txt"))
        let findings = try OutsideReferenceScanner().scan(root: root)
        #expect(findings.isEmpty, "paths outside the repository:\n\(findings.map(\.description).joined(separator: "\n"))")
    }

    @Test("The scanner resolves relative paths from the naming file's folder")
    func scannerResolvesRelativePaths() {
        // The planted texts spell `../` as `UP/`, `shared/` as `SHARED/` and `/work`, `/home`,
        // `/root` in capitals, so that this file holds none of what it plants.
        func planted(_ text: String) -> String {
            [("UP/", "../"), ("SHARED/", "shared/"), ("/WORK/", "/work/"), ("/HOME/", "/home/"), ("/ROOT/", "/root/")]
                .reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        }
        func references(_ text: String, in path: String) -> [String] {
            OutsideReferenceScanner().findings(in: planted(text)[...], path: path).map(\.reference)
        }
        #expect(references("data in UP/SHARED/data/ego-facebook", in: "Tests/GraphdTests/X.swift") == [planted("SHARED/data")])
        #expect(references("see UP/UP/UP/SHARED/peers/gen_social.py", in: "Tests/GraphdTests/X.swift")
                == [planted("UP/UP/UP/SHARED/peers/gen_social.py"), planted("SHARED/peers")])
        #expect(references("run UP/UP/tool", in: "Benchmarks/peers/run.sh") == [])
        #expect(references("run UP/UP/UP/tool", in: "Benchmarks/peers/run.sh") == [planted("UP/UP/UP/tool")])
        #expect(references("[link](UP/README.md)", in: "docs/x.md") == [])
        #expect(references("[link](UP/UP/other/README.md)", in: "docs/x.md") == [planted("UP/UP/other/README.md")])
        #expect(references("a/b/UP/UP/UP/up", in: "README.md") == [planted("a/b/UP/UP/UP/up")])
        #expect(references("cd \"$here/UP/..\"; ls /tmp/medium /usr/bin/env", in: "Benchmarks/peers/run.sh") == [])
        #expect(references("open /WORK/main/x and /HOME/ann/y and /ROOT/.pyenv", in: "docs/x.md")
                == [planted("/WORK/main"), planted("/HOME/ann"), planted("/ROOT/.pyenv")])
        #expect(references("a shared/exclusive lock; data shared/ between threads", in: "docs/x.md") == [])
        #expect(references("see SHARED/README.md", in: "docs/x.md") == [planted("SHARED/README.md")])
        let found = OutsideReferenceScanner().findings(in: planted("one\ntwo UP/x\n")[...], path: "README.md")
        #expect(found == [.init(file: "README.md", line: 2, reference: planted("UP/x"))])
    }

    @Test("Docs and comments say what is, not which session changed it")
    func noDiaryEntries() throws {
        let root = Fixtures.repositoryRoot
        let ordinal = "(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|[a-z]+teenth|[a-z]+tieth|twenty-[a-z]+|thirty-[a-z]+)"
        let diary = try Regex("(?i)\\b\(ordinal) session\\b")
        var found: [String] = []
        for path in try OutsideReferenceScanner.repositoryFiles(root: root)
        where path.hasSuffix(".md") || path.hasSuffix(".swift") || path.hasSuffix(".py") || path.hasSuffix(".sh") {
            guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { continue }
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(diary) {
                found.append("\(path):\(index + 1): \(line.prefix(120))")
            }
        }
        #expect(found.isEmpty, "diary entries (the history belongs in git log):\n\(found.joined(separator: "\n"))")
        // Spelled in two parts so this file does not find itself.
        #expect(("in the twenty-fourth " + "session").contains(diary) && !"a client session".contains(diary))
    }
}
