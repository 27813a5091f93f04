import Foundation
import RichPushCore

/// The fields of a Firebase service-account key file that sending needs.
struct ServiceAccount: Decodable, Sendable {
    var projectId: String
    var clientEmail: String
    var privateKey: String
    var tokenURI: String

    enum CodingKeys: String, CodingKey {
        case projectId = "project_id"
        case clientEmail = "client_email"
        case privateKey = "private_key"
        case tokenURI = "token_uri"
    }

    static func load(path: String) throws(HubConfigurationError) -> ServiceAccount {
        let data = try HubSettings.contents(of: path, setting: ServeHubSettings.fcmServiceAccountFile.name)
        let account: ServiceAccount
        do {
            account = try JSONDecoder().decode(ServiceAccount.self, from: data)
        } catch {
            throw HubConfigurationError(
                "\(ServeHubSettings.fcmServiceAccountFile.name): \(path) is not a service-account key with project_id, client_email, private_key and token_uri"
            )
        }
        guard !account.projectId.isEmpty, !account.clientEmail.isEmpty else {
            throw HubConfigurationError("\(ServeHubSettings.fcmServiceAccountFile.name): project_id and client_email must not be empty")
        }
        _ = try HubSettings.baseURL(account.tokenURI, setting: "\(ServeHubSettings.fcmServiceAccountFile.name) token_uri")
        return account
    }
}
