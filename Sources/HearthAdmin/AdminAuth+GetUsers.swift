/// Who to look up in ``AdminAuth/getUsers(_:)``.
public enum UserIdentifier: Sendable, Equatable {
    case uid(String)
    case email(String)
    case phoneNumber(String)
}

/// What ``AdminAuth/getUsers(_:)`` found, and which identifiers matched no account.
public struct GetUsersResult: Sendable {
    public let users: [UserRecord]
    public let notFound: [UserIdentifier]
}

extension AdminAuth {
    /// The accounts of up to 100 identifiers, in one request.
    public func getUsers(_ identifiers: [UserIdentifier]) async throws -> GetUsersResult {
        guard identifiers.count <= 100 else { throw AdminError("maximum-user-count-exceeded", "at most 100 identifiers at once") }
        var uids: [String] = []
        var emails: [String] = []
        var phones: [String] = []
        for identifier in identifiers {
            switch identifier {
            case .uid(let uid): uids.append(uid)
            case .email(let email): emails.append(email)
            case .phoneNumber(let phone): phones.append(phone)
            }
        }
        var body: [String: Any] = [:]
        if !uids.isEmpty { body["localId"] = uids }
        if !emails.isEmpty { body["email"] = emails }
        if !phones.isEmpty { body["phoneNumber"] = phones }
        guard !body.isEmpty else { return GetUsersResult(users: [], notFound: []) }
        let answer = try await client.auth("/accounts:lookup", body)
        let users = (answer["users"] as? [[String: Any]] ?? []).map(UserRecord.init)
        let notFound = identifiers.filter { identifier in
            !users.contains { user in
                switch identifier {
                case .uid(let uid): user.uid == uid
                case .email(let email): user.email?.lowercased() == email.lowercased()
                case .phoneNumber(let phone): user.phoneNumber == phone
                }
            }
        }
        return GetUsersResult(users: users, notFound: notFound)
    }
}
