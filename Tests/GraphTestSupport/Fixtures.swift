// Fixtures.swift — where the repository's test data lives (Tests/Fixtures), found from this
// file's own path so a test reads it the same way from any working directory or clone.

import Foundation

/// The repository's vendored test data: `Tests/Fixtures/<name>`, each folder with a README.md
/// giving its source, licence and citation.
public enum Fixtures {
    /// The repository's root directory (the folder holding Package.swift).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)  // <root>/Tests/GraphTestSupport/this file
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Fixtures` itself.
    public static let directory: URL = repositoryRoot.appendingPathComponent("Tests/Fixtures")

    /// SNAP ego-Facebook: `facebook_combined.txt` (4,039 users, 88,234 friendships) and
    /// `expected.json` (degrees, friends of friends, top connections, mutual friends).
    public static let egoFacebook: URL = directory.appendingPathComponent("ego-facebook")

    /// Display names in 24 locales (`users-3k.csv`: id,name,username), for people search.
    public static let names: URL = directory.appendingPathComponent("names")
}
