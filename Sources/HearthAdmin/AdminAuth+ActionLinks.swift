import Foundation

/// Email action links made for the server to send itself: password reset, email verification
/// and email-link sign-in (spec auth-api §2.9 with `returnOobLink`).
extension AdminAuth {
    /// A password-reset link for `email`, made without sending it.
    public func generatePasswordResetLink(email: String, actionCodeSettings: AdminActionCodeSettings? = nil) async throws
        -> String
    {
        try await actionLink("PASSWORD_RESET", email: email, settings: actionCodeSettings)
    }

    /// An email-verification link for `email`, made without sending it.
    public func generateEmailVerificationLink(email: String, actionCodeSettings: AdminActionCodeSettings? = nil) async throws
        -> String
    {
        try await actionLink("VERIFY_EMAIL", email: email, settings: actionCodeSettings)
    }

    /// A link that signs `email`'s owner in (creating the account if there is none), made
    /// without sending it; the app completes it with `Auth.signIn(withEmail:link:)`.
    public func generateSignInWithEmailLink(email: String, actionCodeSettings: AdminActionCodeSettings) async throws
        -> String
    {
        try await actionLink("EMAIL_SIGNIN", email: email, settings: actionCodeSettings)
    }

    private func actionLink(_ type: String, email: String, settings: AdminActionCodeSettings?) async throws -> String {
        var body = try settings?.requestFields() ?? [:]
        body["requestType"] = type
        body["email"] = email
        body["returnOobLink"] = true
        let answer = try await client.auth("/accounts:sendOobCode", body)
        guard let link = answer["oobLink"] as? String else { throw AdminError("internal-error", "no oobLink in the answer") }
        return link
    }
}

/// Where an email action link continues and which app opens it, as the Admin SDKs'
/// `ActionCodeSettings` (named apart from HearthAuth's class, so that both modules can be used
/// together).
public struct AdminActionCodeSettings: Sendable {
    /// The continue URL: absolute, with a host.
    public var url: String
    /// Whether the link opens the app directly; must be `true` for email-link sign-in in an app.
    public var handleCodeInApp: Bool?
    /// The iOS app to open the link in.
    public var iOSBundleID: String?
    /// The Android app to open the link in.
    public var androidPackageName: String?
    /// Whether an Android device without the app is offered to install it.
    public var androidInstallApp: Bool?
    /// The oldest version of the Android app that can open the link.
    public var androidMinimumVersion: String?
    /// The Hosting domain mobile links are made on.
    public var linkDomain: String?

    public init(
        url: String, handleCodeInApp: Bool? = nil, iOSBundleID: String? = nil, androidPackageName: String? = nil,
        androidInstallApp: Bool? = nil, androidMinimumVersion: String? = nil, linkDomain: String? = nil
    ) {
        self.url = url
        self.handleCodeInApp = handleCodeInApp
        self.iOSBundleID = iOSBundleID
        self.androidPackageName = androidPackageName
        self.androidInstallApp = androidInstallApp
        self.androidMinimumVersion = androidMinimumVersion
        self.linkDomain = linkDomain
    }

    /// The `accounts:sendOobCode` fields, checked as the Admin SDKs check them before sending.
    func requestFields() throws(AdminError) -> [String: Any] {
        guard !url.isEmpty else { throw AdminError("missing-continue-uri", "A continue URL must be provided in the request.") }
        guard let parsed = URLComponents(string: url), parsed.scheme != nil, !(parsed.host ?? "").isEmpty else {
            throw AdminError("invalid-continue-uri", "The continue URL must be a valid URL string.")
        }
        if androidPackageName == nil, androidInstallApp == true || androidMinimumVersion != nil {
            throw AdminError(
                "missing-android-pkg-name", "An Android Package Name must be provided if the Android App is required to be installed.")
        }
        var body: [String: Any] = ["continueUrl": url]
        if let handleCodeInApp { body["canHandleCodeInApp"] = handleCodeInApp }
        if let iOSBundleID { body["iOSBundleId"] = iOSBundleID }
        if let androidPackageName { body["androidPackageName"] = androidPackageName }
        if let androidInstallApp { body["androidInstallApp"] = androidInstallApp }
        if let androidMinimumVersion { body["androidMinimumVersion"] = androidMinimumVersion }
        if let linkDomain { body["linkDomain"] = linkDomain }
        return body
    }
}
