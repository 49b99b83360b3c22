import HearthCore

extension AuthService {
    /// `accounts:query`: the accounts matching the first `expression` (an exact uid, a
    /// case-insensitive email or a phone number; every account without one), sorted by
    /// `sortBy` in `order`, `offset` skipped and at most `limit` (500) returned. With
    /// `returnUserInfo` false it answers only how many match; with it true, `recordsCount` is the
    /// number returned, as Identity Platform documents.
    func query(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let request = try AccountQuery(body)
        let matching = try await directory.read { state in request.matches(in: state.users) }
        guard request.returnsUsers else {
            return .members([("recordsCount", .string(String(matching.count)))])
        }
        let page = request.page(of: matching)
        return .members([
            ("recordsCount", .string(String(page.count))),
            ("userInfo", page.isEmpty ? nil : .array(page.map { UserInfoJSON.render($0, revealsHash: true) })),
        ])
    }
}

/// An `accounts:query` request, read and checked before any account is looked at.
struct AccountQuery {
    /// The fields accounts are sorted by (Identity Platform's `SortByField`).
    enum SortField: String {
        case userID = "USER_ID"
        case name = "NAME"
        case createdAt = "CREATED_AT"
        case lastLoginAt = "LAST_LOGIN_AT"
        case email = "USER_EMAIL"
    }

    /// One `SqlExpression`: exactly one field names the accounts wanted.
    enum Filter {
        case userID(String)
        case email(String)
        case phoneNumber(String)
    }

    static let largestLimit = 500

    let returnsUsers: Bool
    let limit: Int
    let offset: Int
    let sortField: SortField
    let descending: Bool
    let filter: Filter?

    init(_ body: AuthRequestBody) throws(AuthError) {
        returnsUsers = try body.bool("returnUserInfo") ?? true
        let limit = try body.int64("limit") ?? Int64(Self.largestLimit)
        let offset = try body.int64("offset") ?? 0
        guard limit >= 0 else { throw .invalidArgument("limit (TYPE_INT64), must not be negative.") }
        guard offset >= 0 else { throw .invalidArgument("offset (TYPE_INT64), must not be negative.") }
        self.limit = Int(min(limit, Int64(Self.largestLimit)))
        self.offset = Int(min(offset, Int64(Int32.max)))
        switch try body.string("sortBy") {
        case nil, "SORT_BY_FIELD_UNSPECIFIED": sortField = .userID
        case let name?:
            guard let field = SortField(rawValue: name) else {
                throw .invalidArgument("sortBy (TYPE_ENUM), \"\(name)\" is not a SortByField.")
            }
            sortField = field
        }
        switch try body.string("order") {
        case nil, "ORDER_UNSPECIFIED", "ASC": descending = false
        case "DESC": descending = true
        case let name?: throw .invalidArgument("order (TYPE_ENUM), \"\(name)\" is not an Order.")
        }
        // Only the first expression is evaluated, as Identity Platform documents.
        filter = try body.objects("expression").first.map { expression throws(AuthError) in try Self.filter(expression) } ?? nil
    }

    private static func filter(_ expression: AuthRequestBody) throws(AuthError) -> Filter? {
        if let uid = try expression.string("userId") { return .userID(uid) }
        if let email = try expression.string("email") { return .email(email.lowercased()) }
        if let phone = try expression.string("phoneNumber") { return .phoneNumber(phone) }
        return nil
    }

    /// Every account the filter names, in the requested order.
    func matches(in users: UserTable) -> [UserRecord] {
        let found: [UserRecord]
        switch filter {
        case .userID(let uid)?: found = users[uid].map { [$0] } ?? []
        case .email(let email)?: found = users.users(withEmail: email)
        case .phoneNumber(let phone)?: found = users.user(withPhone: phone).map { [$0] } ?? []
        case nil: found = Array(users.byID.values)
        }
        let ascending = found.sorted { sortKey($0) < sortKey($1) }
        return descending ? ascending.reversed() : ascending
    }

    /// The accounts after `offset`, at most `limit` of them.
    func page(of matching: [UserRecord]) -> ArraySlice<UserRecord> {
        let start = min(offset, matching.count)
        return matching[start..<min(matching.count, start + limit)]
    }

    /// The sort field's value, then the uid so that equal values keep one order between pages.
    /// Accounts without the field sort first, as empty text does.
    private func sortKey(_ user: UserRecord) -> SortKey {
        switch sortField {
        case .userID: SortKey(text: user.localId, number: 0, uid: user.localId)
        case .name: SortKey(text: user.displayName ?? "", number: 0, uid: user.localId)
        case .email: SortKey(text: user.email ?? "", number: 0, uid: user.localId)
        case .createdAt: SortKey(text: "", number: user.createdAt, uid: user.localId)
        case .lastLoginAt: SortKey(text: "", number: user.lastLoginAt ?? 0, uid: user.localId)
        }
    }

    private struct SortKey: Comparable {
        let text: String
        let number: Int64
        let uid: String

        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            (lhs.text, lhs.number, lhs.uid) < (rhs.text, rhs.number, rhs.uid)
        }
    }
}
