/// The project's Authentication settings an administrator can change while the server runs.
struct ProjectAuthConfig: Codable, Sendable, Equatable {
    /// Several accounts may share an email (federated sign-ups then keep the email off the account).
    var allowDuplicateEmails = false
    /// Email-enumeration protection: sign-in failures and lookups reveal no account's existence.
    var enableImprovedEmailPrivacy = false
    /// The sign-in methods clients may use. Administrators (the Admin SDK, the console) create
    /// and change accounts whatever they say.
    var signInMethods = SignInMethods()

    init() {}

    /// Settings stored before a field existed read as its default.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        allowDuplicateEmails = try container.decodeIfPresent(Bool.self, forKey: .allowDuplicateEmails) ?? false
        enableImprovedEmailPrivacy = try container.decodeIfPresent(Bool.self, forKey: .enableImprovedEmailPrivacy) ?? false
        signInMethods = try container.decodeIfPresent(SignInMethods.self, forKey: .signInMethods) ?? SignInMethods()
    }
}

/// Which of the built-in sign-in methods are on, as the Firebase console's "Sign-in method" tab
/// sets them (`signIn.email`, `signIn.phoneNumber`, `signIn.anonymous` of the project's
/// configuration). Every method is on by default, as in the Auth emulator.
struct SignInMethods: Codable, Sendable, Equatable {
    /// Email and password sign-up and sign-in.
    var email = true
    /// Whether email sign-in needs a password: `false` also allows email links (passwordless).
    var passwordRequired = false
    var phoneNumber = true
    var anonymous = true

    /// Whether email links may sign users in.
    var emailLink: Bool { email && !passwordRequired }
}
