/// The project settings the emulator's `config` endpoint manages (auth spec §8, §11.2).
struct ProjectAuthConfig: Codable, Sendable, Equatable {
    /// Several accounts may share an email (federated sign-ups then keep the email off the account).
    var allowDuplicateEmails = false
    /// Email-enumeration protection: sign-in failures and lookups reveal no account's existence.
    var enableImprovedEmailPrivacy = false
}
