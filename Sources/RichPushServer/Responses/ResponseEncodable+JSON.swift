import Foundation
public import Hummingbird
import NIOFoundationEssentialsCompat
public import RichPushCore

// The API's JSON shapes are declared in RichPushCore, which the clients share and which knows nothing of
// Hummingbird; the server makes them responses here. Swift does not call these conformances retroactive (Core is
// in the same package), but they are public ones: Hummingbird is imported publicly for them.
extension UserJSON: ResponseEncodable {}
extension SessionJSON: ResponseEncodable {}
extension ImageJSON: ResponseEncodable {}
extension NotificationJSON: ResponseEncodable {}
extension PageJSON: ResponseGenerator, ResponseEncodable where Item: Encodable {}
extension ListJSON: ResponseGenerator, ResponseEncodable where Item: Encodable {}
extension StatusJSON: ResponseEncodable {}
extension InstallationJSON: ResponseEncodable {}
extension InstallationImportJSON: ResponseEncodable {}
extension FeedJSON: ResponseEncodable {}
extension FeedItemJSON: ResponseEncodable {}
extension ReceiptJSON: ResponseEncodable {}
extension TimelineJSON: ResponseEncodable {}
extension TokenJSON: ResponseEncodable {}
extension AudienceCountJSON: ResponseEncodable {}
extension SegmentsJSON: ResponseEncodable {}
extension HealthJSON: ResponseEncodable {}
extension WebPushKeyJSON: ResponseEncodable {}
extension RetryJSON: ResponseEncodable {}
extension WebhookJSON: ResponseEncodable {}
extension ActivityJSON: ResponseEncodable {}
