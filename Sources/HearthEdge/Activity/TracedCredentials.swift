import HearthCore

/// A ``CredentialVerifying`` that tells the request's trace whom each accepted credential
/// establishes, so that the requests feed shows the user of every product's requests.
package struct TracedCredentials: CredentialVerifying {
    private let base: any CredentialVerifying

    package init(_ base: any CredentialVerifying) {
        self.base = base
    }

    package func caller(credential: String, authvar: JSONValue?, noauth: Bool, now: Int64) async throws(CredentialFailure) -> (
        Caller, expires: Int64
    ) {
        let established = try await base.caller(credential: credential, authvar: authvar, noauth: noauth, now: now)
        RequestTrace.current?.noteCaller(established.0)
        RequestIdentity.current?.noteCaller(established.0)
        return established
    }

    package func lapse(of credential: String, authvar: JSONValue?, noauth: Bool) async -> CredentialFailure? {
        await base.lapse(of: credential, authvar: authvar, noauth: noauth)
    }

    package func isAdmin(_ credential: String, now: Int64) async -> Bool {
        let isAdmin = await base.isAdmin(credential, now: now)
        if isAdmin {
            RequestTrace.current?.noteCaller(.admin)
            RequestIdentity.current?.noteCaller(.admin)
        }
        return isAdmin
    }
}
