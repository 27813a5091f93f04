/// `POST /api/installations/import`: how many entries were stored, and how many of them were new installations.
public struct InstallationImportJSON: Codable, Sendable, Equatable {
    public var imported: Int
    public var created: Int

    public init(imported: Int, created: Int) {
        self.imported = imported
        self.created = created
    }
}
