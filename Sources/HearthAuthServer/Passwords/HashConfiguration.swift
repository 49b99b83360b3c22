import HearthEdge
import HearthPasswords
import Logging
import NIOPosix

/// The project's password hash parameters, as the Firebase console shows them ("Password hash
/// parameters"), so that accounts exported from Hearth import into Firebase and back.
public enum HashConfiguration {
    /// The parameters of the store at `location` (created if it has none yet), in the console's
    /// format.
    package static func consoleText(store location: AuthStoreLocation, logger: Logger) async throws -> String {
        let store = try await location.open(logger: logger)
        let configuration: FirebaseScrypt
        do {
            configuration = try await PasswordService.open(store: store, threadPool: .singleton).configuration
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        return """
            hash_config {
              algorithm: SCRYPT,
              base64_signer_key: \(Base64URL.standard(configuration.signerKey)),
              base64_salt_separator: \(Base64URL.standard(configuration.saltSeparator)),
              rounds: \(configuration.rounds),
              mem_cost: \(configuration.memoryCost),
            }
            """
    }
}
