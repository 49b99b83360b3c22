/// Bounds on what one client may hold of a server's connections, so that a few sockets sending
/// slowly cannot keep request handlers and descriptors busy for ever.
public struct ConnectionLimits: Sendable {
    /// The most connections one IP address may hold open at once; `nil` for no cap.
    public var maximumPerAddress: Int?
    /// The slowest a request body may arrive once ``bodyGracePeriod`` has passed, in bytes per
    /// second; 0 turns the check off.
    public var minimumBodyRate: Int
    /// How long a request body may take before ``minimumBodyRate`` applies.
    public var bodyGracePeriod: Duration

    public init(maximumPerAddress: Int? = nil, minimumBodyRate: Int = 500, bodyGracePeriod: Duration = .seconds(20)) {
        self.maximumPerAddress = maximumPerAddress
        self.minimumBodyRate = minimumBodyRate
        self.bodyGracePeriod = bodyGracePeriod
    }
}
