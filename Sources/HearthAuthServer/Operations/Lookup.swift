import HearthCore

extension AuthService {
    /// `accounts:lookup` (auth spec §2.6): the signed-in user for an end user; for a privileged
    /// caller every account matching the given uids, emails, phone numbers and federated ids.
    /// `users` is omitted when nothing matches.
    func lookup(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let users: [UserRecord]
        if call.privileged && !body.has("idToken") {
            let localIds = try body.strings("localId")
            let emails = try body.strings("email").map { $0.lowercased() }
            let phones = try body.strings("phoneNumber")
            var federated: [(String, String)] = []
            for entry in try body.objects("federatedUserId") {
                federated.append((try entry.string("providerId") ?? "", try entry.string("rawId") ?? ""))
            }
            if body.has("initialEmail") { throw .notImplemented("Lookup by initialEmail is not implemented.") }
            users = try await directory.read { state in
                var found: [UserRecord] = []
                func add(_ user: UserRecord?) {
                    if let user, !found.contains(where: { $0.localId == user.localId }) { found.append(user) }
                }
                localIds.forEach { add(state.users[$0]) }
                emails.forEach { state.users.users(withEmail: $0).forEach(add) }
                phones.forEach { add(state.users.user(withPhone: $0)) }
                federated.forEach { add(state.users.user(federatedBy: $0.0, rawId: $0.1)) }
                return found
            }
        } else {
            users = [try await user(forIDToken: try body.string("idToken"), call).0]
        }
        return .members([
            ("kind", .string("identitytoolkit#GetAccountInfoResponse")),
            ("users", users.isEmpty ? nil : .array(users.map { UserInfoJSON.render($0, revealsHash: call.privileged) })),
        ])
    }

    /// `accounts:delete` (auth spec §2.8): the signed-in user, or for a privileged caller the
    /// account `localId` names. Its sessions go with it.
    func delete(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let localId: String
        if call.privileged && !body.has("idToken") {
            localId = try body.required("localId", else: .code("MISSING_LOCAL_ID"))
        } else {
            let (user, claims) = try await user(forIDToken: try body.string("idToken"), call)
            try requireRecentLogin(claims, call)
            localId = user.localId
        }
        try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) in
            guard state.users[localId] != nil else { throw .code("USER_NOT_FOUND") }
            state.users.remove(localId)
        }
        return .object([JSONMember(key: "kind", value: .string("identitytoolkit#DeleteAccountResponse"))])
    }
}
