import Foundation
@_spi(HearthSDK) import HearthApp

/// The signed-in user's ID token on the realtime connection (spec rtdb-protocol §5.2): when the
/// app's auth exists, the first handshake waits for its token; afterwards every sign-in, refresh
/// and sign-out is sent as `auth` or `unauth`, so rules always see the current `auth`.
extension Repo {
    /// Opens the connection, with the current user's token when the app has an auth.
    func startConnection() {
        guard let app = database.app else { return connection.open() }
        guard let provider = app.authTokenProvider else {
            connection.open()
            app.whenAuthTokenProviderIsSet { [weak self] provider in self?.follow(provider, opening: false) }
            return
        }
        follow(provider, opening: true)
    }

    /// Sends `provider`'s token now and its changes from now on; opens the connection once the
    /// first token is known when `opening`. A change announced while the first token is being
    /// fetched wins over that fetch's (older) answer.
    private func follow(_ provider: any AuthTokenProvider, opening: Bool) {
        let announced = AnnouncedToken()
        provider.addTokenListener { [weak self] token in
            guard let self else { return }
            queue.async { [self] in
                announced.mark()
                connection.setAuthToken(token)
            }
        }
        Task { [weak self] in
            let token = try? await provider.idToken(forcingRefresh: false)
            guard let self else { return }
            queue.async { [self] in
                if !announced.happened { connection.setAuthToken(token) }
                if opening { connection.open() }
            }
        }
    }
}

/// Whether a token change has been announced; read and written on the database queue only.
private final class AnnouncedToken: @unchecked Sendable {
    private(set) var happened = false
    func mark() { happened = true }
}
