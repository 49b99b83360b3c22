import Hummingbird
import NIOCore

/// The request context of every Hearth endpoint: Hummingbird's core storage plus the connection's
/// channel, which streaming endpoints close when a client stops reading.
public struct HearthRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// Database writes over REST may carry up to 256 MB; the database refuses larger ones with
    /// Firebase's own error instead of a bare 413.
    public var maxUploadSize: Int { DatabaseLimits.maximumRESTWriteBytes + 1 }
}

/// Size limits of the Realtime Database.
public enum DatabaseLimits {
    /// The largest body of a REST write.
    public static let maximumRESTWriteBytes = 256 * 1024 * 1024
}
