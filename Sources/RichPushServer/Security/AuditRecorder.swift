import Logging
import RichPushStore

extension Store {
    /// Records what `caller` did once it is done. The action has happened by then, so a failure to record it is
    /// logged rather than turned into an error answer that would tell the caller it had not.
    func audit(_ action: AuditAction, target: String, details: String? = nil, by caller: AuthenticatedUser, logger: Logger) async {
        let via = caller.tokenId.map { "with token \($0)" }
        let text = [details, via].compactMap { $0 }.joined(separator: "; ")
        do {
            try await recordAudit(actor: caller.username, action: action, target: target, details: text.isEmpty ? nil : text)
        } catch {
            logger.error("audit event not recorded", metadata: ["richpush.action": "\(action.rawValue)", "richpush.error": "\(error)"])
        }
    }
}
