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

    /// Bodies are collected by each endpoint with its own limit (a database write may carry
    /// 256 MB); this only bounds bodies nobody collects explicitly.
    public var maxUploadSize: Int { 2 * 1024 * 1024 }
}
