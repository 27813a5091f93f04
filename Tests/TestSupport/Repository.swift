public import Foundation

/// The repository's root, for `Public/`, `img/`, the README and the fixtures.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
