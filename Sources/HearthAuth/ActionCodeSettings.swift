import Foundation

/// Where an email action's link leads and which app opens it: the continue URL, whether the
/// app handles the code itself (required for email-link sign-in), and the iOS and Android apps.
/// Safe to share between threads, as Firebase's is.
public final class ActionCodeSettings: @unchecked Sendable {
    private let lock = NSLock()
    private var fields = Fields()

    private struct Fields {
        var url: URL?
        var handleCodeInApp = false
        var iOSBundleID = Bundle.main.bundleIdentifier
        var androidPackageName: String?
        var androidMinimumVersion: String?
        var androidInstallIfNotAvailable = false
        var linkDomain: String?
    }

    public init() {}

    /// One field, read or written under the lock.
    private subscript<Value>(field: WritableKeyPath<Fields, Value>) -> Value {
        get { lock.withLock { fields[keyPath: field] } }
        set { lock.withLock { fields[keyPath: field] = newValue } }
    }

    /// The continue URL: where the user goes after the action (with email-link sign-in, the
    /// link the app receives carries it).
    public var url: URL? {
        get { self[\.url] }
        set { self[\.url] = newValue }
    }

    /// Whether the link opens the app directly rather than the web action page first; must be
    /// `true` for ``Auth/sendSignInLink(toEmail:actionCodeSettings:)``.
    public var handleCodeInApp: Bool {
        get { self[\.handleCodeInApp] }
        set { self[\.handleCodeInApp] = newValue }
    }

    /// The iOS app to open the link in; the main bundle's identifier by default.
    public var iOSBundleID: String? {
        get { self[\.iOSBundleID] }
        set { self[\.iOSBundleID] = newValue }
    }

    /// The Android app to open the link in.
    public var androidPackageName: String? {
        get { self[\.androidPackageName] }
        set { self[\.androidPackageName] = newValue }
    }

    /// The oldest version of the Android app that can open the link.
    public var androidMinimumVersion: String? {
        get { self[\.androidMinimumVersion] }
        set { self[\.androidMinimumVersion] = newValue }
    }

    /// Whether an Android device without the app is offered to install it.
    public var androidInstallIfNotAvailable: Bool {
        get { self[\.androidInstallIfNotAvailable] }
        set { self[\.androidInstallIfNotAvailable] = newValue }
    }

    /// The Hosting domain mobile links are made on.
    public var linkDomain: String? {
        get { self[\.linkDomain] }
        set { self[\.linkDomain] = newValue }
    }

    /// Sets the Android app, whether to offer installing it, and its oldest usable version.
    public func setAndroidPackageName(_ packageName: String, installIfNotAvailable: Bool, minimumVersion: String?) {
        lock.withLock {
            fields.androidPackageName = packageName
            fields.androidInstallIfNotAvailable = installIfNotAvailable
            fields.androidMinimumVersion = minimumVersion
        }
    }

    /// Sets the iOS app.
    public func setIOSBundleID(_ bundleID: String) {
        iOSBundleID = bundleID
    }

    /// The settings as `accounts:sendOobCode` fields, as the SDK sends them (auth-api §2.9).
    var requestFields: [String: Any] {
        let current = lock.withLock { fields }
        var body: [String: Any] = [:]
        if let url = current.url { body["continueUrl"] = url.absoluteString }
        if let bundleID = current.iOSBundleID { body["iOSBundleId"] = bundleID }
        if let packageName = current.androidPackageName { body["androidPackageName"] = packageName }
        if let minimumVersion = current.androidMinimumVersion { body["androidMinimumVersion"] = minimumVersion }
        if current.androidInstallIfNotAvailable { body["androidInstallApp"] = true }
        if current.handleCodeInApp { body["canHandleCodeInApp"] = true }
        if let linkDomain = current.linkDomain { body["linkDomain"] = linkDomain }
        return body
    }
}

extension Auth {
    /// `accounts:sendOobCode` of `requestType` with `fields` and `settings`' fields.
    func sendOobCode(_ requestType: String, _ fields: [String: Any], settings: ActionCodeSettings?) async throws(AuthError) {
        var body = settings?.requestFields ?? [:]
        body.merge(fields) { _, own in own }
        body["requestType"] = requestType
        _ = try await backend.accounts("sendOobCode", body)
    }
}
