/// Values every gateway process must agree on, such as the key that signs payload links, kept in the database so a
/// new process finds the ones the first created.
public protocol SharedSettingRepository: Sendable {
    /// The stored value of setting `name`, created with `makeValue()` by the first process that asks.
    func value(_ name: String, orCreate makeValue: @Sendable () -> String) async throws -> String
}
