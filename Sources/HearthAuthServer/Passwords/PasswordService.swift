import HearthPasswords
import NIOPosix

/// Hashes and checks passwords with the project's Firebase-scrypt configuration, on a thread
/// pool of its own so that hashing never occupies an event loop or the task executor.
struct PasswordService: Sendable {
    let configuration: FirebaseScrypt
    let threadPool: NIOThreadPool

    /// Loads the project's hash configuration, creating it on first start: of nodes starting
    /// together on a shared store, the first to save its configuration gives it to all.
    static func open(store: any AuthStore, threadPool: NIOThreadPool) async throws -> PasswordService {
        if try await store.setting("hash-config", as: FirebaseScrypt.self) == nil {
            _ = try await store.replaceSetting("hash-config", expected: FirebaseScrypt?.none, with: FirebaseScrypt.generate())
        }
        guard let configuration = try await store.setting("hash-config", as: FirebaseScrypt.self) else {
            throw AuthStoreError.corruptRow
        }
        return PasswordService(configuration: configuration, threadPool: threadPool)
    }

    /// A new salt and the project's hash of `password` with it.
    func hash(_ password: String) async throws(AuthError) -> StoredPassword {
        let salt = Self.randomBytes(16)
        let configuration = self.configuration
        do {
            let hash = try await threadPool.runIfActive { try configuration.hash(password: password, salt: salt) }
            return StoredPassword(hash: hash, salt: salt, importedWith: nil)
        } catch {
            throw AuthError.internalError("Could not hash the password: \(error)")
        }
    }

    /// Whether `password` is the one `stored` was made from; `false` when there is none (no
    /// account, or one without a password), after checking it against a made-up hash of the
    /// project's parameters all the same: the time a sign-in takes does not tell the two apart.
    func check(_ password: String, against stored: StoredPassword?) async -> Bool {
        guard let stored else {
            let decoy = StoredPassword(hash: Self.randomBytes(configuration.signerKey.count), salt: Self.randomBytes(16), importedWith: nil)
            _ = await matches(password, decoy)
            return false
        }
        return await matches(password, stored)
    }

    /// Whether `password` is the one `stored` was made from, with the algorithm it was made with.
    private func matches(_ password: String, _ stored: StoredPassword) async -> Bool {
        let configuration = self.configuration
        return
            (try? await threadPool.runIfActive {
                if let algorithm = stored.importedWith {
                    return algorithm.matches(password: password, hash: stored.hash, salt: stored.salt)
                }
                return configuration.matches(password: password, salt: stored.salt, expected: stored.hash)
            }) ?? false
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255) }
    }
}
