public import RichPushCore

/// What the user sees for one rich notification, whatever shows it (a desktop notification or the console).
public struct Alert: Sendable, Equatable {
    public var richId: Int64
    public var richType: RichType
    /// The title line.
    public var summary: String
    /// The notification's `richMessage`.
    public var message: String
    /// A line under the message: the start of a text payload, or a link.
    public var detail: String?
    /// A link the detail shows, when the payload is a URL.
    public var link: String?
    /// The scaled copy of the image that travels inside the alert.
    public var image: DesktopImage?
    /// The full image in the cache directory.
    public var imageFile: String?
    /// What "More" opens: the full image, the text payload as a file, or the URL; nil when there is nothing to open.
    public var openTarget: String?
    /// The sender's buttons, after the alert's own.
    public var actions: [DeviceAction] = []
    /// The freedesktop urgency hint (0 low, 1 normal, 2 critical); nil leaves it to the server.
    public var urgency: UInt8?

    public init(
        richId: Int64, richType: RichType, summary: String, message: String, detail: String? = nil, link: String? = nil,
        image: DesktopImage? = nil, imageFile: String? = nil, openTarget: String? = nil
    ) {
        self.richId = richId
        self.richType = richType
        self.summary = summary
        self.message = message
        self.detail = detail
        self.link = link
        self.image = image
        self.imageFile = imageFile
        self.openTarget = openTarget
    }
}
