import RichPushCore
import RichPushStore

extension AuthenticatedUser {
    /// The trail's entry of `action` by this caller, naming the token it came with, for the store to write with the
    /// change itself.
    func audit(_ action: AuditAction, target: String, details: String? = nil) -> AuditEntry {
        let via = tokenId.map { inBrowserSession ? "in browser session \($0)" : "with token \($0)" }
        let text = [details, via].compactMap { $0 }.joined(separator: "; ")
        return AuditEntry(actor: username, action: action, target: target, details: text.isEmpty ? nil : text)
    }
}
