/// How an app's other SDK modules (database, storage) reach the signed-in user's ID token, as
/// Firebase's auth interop does: HearthAuth registers itself on the app, and the modules ask it
/// for tokens and follow their changes. Not part of Firebase's API.
@_spi(HearthSDK)
public protocol AuthTokenProvider: AnyObject, Sendable {
    /// The current user's ID token, refreshed first when it expires within five minutes or when
    /// `forcingRefresh`; `nil` when no one is signed in.
    func idToken(forcingRefresh: Bool) async throws -> String?

    /// Calls `listener` with each new ID token: after sign-in, refresh and user change, and
    /// `nil` after sign-out.
    func addTokenListener(_ listener: @escaping @Sendable (String?) -> Void)
}

extension FirebaseApp {
    /// The app's auth, once HearthAuth has been used with it.
    @_spi(HearthSDK)
    public var authTokenProvider: (any AuthTokenProvider)? {
        authProvider.withLock { $0.provider }
    }

    /// Registers the app's auth; the waiting modules are told.
    @_spi(HearthSDK)
    public func setAuthTokenProvider(_ provider: any AuthTokenProvider) {
        let waiting = authProvider.withLock { slot in
            slot.provider = provider
            defer { slot.waiting = [] }
            return slot.waiting
        }
        for handler in waiting { handler(provider) }
    }

    /// Calls `handler` with the app's auth now if it is registered, else when it is.
    @_spi(HearthSDK)
    public func whenAuthTokenProviderIsSet(_ handler: @escaping @Sendable (any AuthTokenProvider) -> Void) {
        let provider = authProvider.withLock { slot in
            if slot.provider == nil { slot.waiting.append(handler) }
            return slot.provider
        }
        if let provider { handler(provider) }
    }
}

/// The app's auth and the modules waiting for it.
struct AuthProviderSlot {
    var provider: (any AuthTokenProvider)?
    var waiting: [@Sendable (any AuthTokenProvider) -> Void] = []
}

/// A value handed across threads that its type does not declare safe to send: the app's
/// completion blocks and listeners, which Firebase's API takes as plain closures and which the
/// SDK modules only ever call on their callback queue. Not part of Firebase's API.
@_spi(HearthSDK)
public struct UncheckedSendable<Value>: @unchecked Sendable {
    public let value: Value

    public init(_ value: Value) {
        self.value = value
    }
}
