import Foundation

/// Settings of an ``Auth``, under Firebase's name. Hearth verifies no app before phone sign-in,
/// so `isAppVerificationDisabledForTesting` changes nothing; it is kept so that test setups
/// written for Firebase compile unchanged.
public final class AuthSettings: @unchecked Sendable {
    private let lock = NSLock()
    private var appVerificationDisabled = false

    public init() {}

    /// Whether app verification (reCAPTCHA, APNs) is skipped in tests.
    public var isAppVerificationDisabledForTesting: Bool {
        get { lock.withLock { appVerificationDisabled } }
        set { lock.withLock { appVerificationDisabled = newValue } }
    }

    /// The same flag, under its other Firebase name.
    public var appVerificationDisabledForTesting: Bool {
        get { isAppVerificationDisabledForTesting }
        set { isAppVerificationDisabledForTesting = newValue }
    }
}
