import HearthCore
import HearthEdge
import HearthPasswords

extension AuthService {
    /// `accounts:batchGet` (auth spec §2.13): a page of accounts in uid order; a full page always
    /// carries `nextPageToken` (the last uid). `maxResults=-1` lists everything, as the emulator.
    func batchGet(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let limit = try body.int64("maxResults") ?? 20
        guard limit == -1 || (1...1000).contains(limit) else { throw .code("INVALID_PAGE_SIZE") }
        let after = try body.string("nextPageToken") ?? ""
        let page = try await directory.page(after: after, limit: limit == -1 ? Int.max : Int(limit))
        return .members([
            ("kind", .string("identitytoolkit#DownloadAccountResponse")),
            ("users", page.isEmpty ? nil : .array(page.map { UserInfoJSON.render($0, revealsHash: true) })),
            ("nextPageToken", limit != -1 && page.count == Int(limit) ? .string(page.last!.localId) : nil),
        ])
    }

    /// `accounts:batchDelete`: removes up to 1,000 accounts; without `force` only disabled ones.
    func batchDelete(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let localIds = try body.strings("localIds")
        guard (1...1000).contains(localIds.count) else { throw .code("LOCAL_ID_LIST_EXCEEDS_LIMIT") }
        let force = try body.bool("force") ?? false
        let errors = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> [JSONValue] in
            var errors: [JSONValue] = []
            for (index, localId) in localIds.enumerated() {
                guard let user = state.users[localId] else { continue }
                if !force && !user.disabled {
                    errors.append(
                        .object([
                            JSONMember(key: "index", value: .number(.int(Int64(index)))),
                            JSONMember(key: "localId", value: .string(localId)),
                            JSONMember(key: "message", value: .string("NOT_DISABLED : Disable the account before batch deletion.")),
                        ]))
                    continue
                }
                state.users.remove(localId)
            }
            return errors
        }
        return errors.isEmpty ? .object([]) : .object([JSONMember(key: "errors", value: .array(errors))])
    }

    /// `accounts:batchCreate` (auth spec §9.1): imports up to 1,000 accounts with password hashes
    /// of any algorithm of §9.2; each failed entry is reported by index.
    func batchCreate(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let entries = try body.objects("users")
        guard !entries.isEmpty else { throw .code("MISSING_USER_ACCOUNT") }
        let algorithm = try Self.importAlgorithm(body)
        let sanityCheck = try body.bool("sanityCheck") ?? false
        let allowOverwrite = try body.bool("allowOverwrite") ?? false
        var failures: [(Int, String)] = []
        var imported: [(Int, UserRecord)] = []
        var seenIDs: Set<String> = []
        var seenEmails: Set<String> = []
        var seenFederated: Set<String> = []
        for (index, entry) in entries.enumerated() {
            do throws(ImportFailure) {
                let user = try ImportedUser.read(entry, algorithm: algorithm, project: passwords.configuration, now: call)
                if !allowOverwrite, !seenIDs.insert(user.localId).inserted {
                    throw ImportFailure.request(.code("DUPLICATE_LOCAL_ID", user.localId))
                }
                if sanityCheck {
                    if let email = user.email, !seenEmails.insert(email).inserted {
                        throw ImportFailure.request(.code("DUPLICATE_EMAIL", email))
                    }
                    for provider in user.providers where !seenFederated.insert("\(provider.providerId)\u{0}\(provider.rawId)").inserted {
                        throw ImportFailure.request(
                            .code("DUPLICATE_RAW_ID", "Provider id(\(provider.providerId)), Raw id(\(provider.rawId))"))
                    }
                }
                imported.append((index, user))
            } catch {
                switch error {
                case .entry(let message): failures.append((index, message))
                case .request(let error): throw error
                }
            }
        }
        let allowDuplicates = try await directory.read { $0.config.allowDuplicateEmails }
        let production = settings.production
        failures += try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> [(Int, String)] in
            var failures: [(Int, String)] = []
            for (index, user) in imported {
                if state.users[user.localId] != nil && !allowOverwrite && !production {
                    failures.append((index, "localId belongs to an existing account - can not overwrite."))
                    continue
                }
                if let email = user.email, !allowDuplicates,
                    state.users.users(withEmail: email).contains(where: { $0.localId != user.localId })
                {
                    failures.append((index, "email exists in other account in database"))
                    continue
                }
                if user.providers.contains(where: {
                    state.users.user(federatedBy: $0.providerId, rawId: $0.rawId).map { $0.localId != user.localId } ?? false
                }) {
                    failures.append((index, "raw id exists in other account in database"))
                    continue
                }
                state.users.put(user)
            }
            return failures
        }
        let errors = failures.sorted { $0.0 < $1.0 }.map { index, message in
            JSONValue.object([
                JSONMember(key: "index", value: .number(.int(Int64(index)))),
                JSONMember(key: "message", value: .string(message)),
            ])
        }
        return .members([
            ("kind", .string("identitytoolkit#UploadAccountResponse")),
            ("error", errors.isEmpty && settings.production ? nil : .array(errors)),
        ])
    }

    /// The batch's hash description, validated; `nil` when no password hashes are imported.
    private static func importAlgorithm(_ body: AuthRequestBody) throws(AuthError) -> PasswordHashAlgorithm? {
        guard let name = try body.string("hashAlgorithm"), !name.isEmpty else { return nil }
        guard let algorithm = PasswordHashAlgorithm.Name(rawValue: name) else { throw .code("INVALID_HASH_ALGORITHM") }
        // Every imported account keeps the description: its keys are bounded as hashes are.
        func bytes(_ key: String, in body: AuthRequestBody = body) throws(AuthError) -> [UInt8]? {
            guard let text = try body.string(key) else { return nil }
            guard let decoded = Base64URL.decode(text) else { throw .invalidArgument("\(key) (TYPE_BYTES), invalid value") }
            guard decoded.count <= AccountLimits.importedHashBytes else {
                throw .code("INVALID_HASH_ALGORITHM", "\(key) is longer than \(AccountLimits.importedHashBytes) bytes")
            }
            return decoded
        }
        func int(_ key: String) throws(AuthError) -> Int? { try body.int64(key).map { Int($0) } }
        var argon2: PasswordHashAlgorithm.Argon2Parameters?
        if let parameters = try body.object("argon2Parameters") {
            guard let type = try parameters.string("hashType").flatMap(PasswordHashAlgorithm.Argon2Parameters.HashType.init) else {
                throw .code("INVALID_HASH_ALGORITHM", "argon2Parameters.hashType is required")
            }
            argon2 = PasswordHashAlgorithm.Argon2Parameters(
                hashType: type, iterations: Int(try parameters.int64("iterations") ?? 0),
                memoryCostKib: Int(try parameters.int64("memoryCostKib") ?? 0),
                parallelism: Int(try parameters.int64("parallelism") ?? 0),
                hashLengthBytes: Int(try parameters.int64("hashLengthBytes") ?? 0),
                version: try parameters.string("version").flatMap(PasswordHashAlgorithm.Argon2Parameters.Version.init) ?? .version13,
                associatedData: try bytes("associatedData", in: parameters))
        }
        let description = PasswordHashAlgorithm(
            name: algorithm, signerKey: try bytes("signerKey"), saltSeparator: try bytes("saltSeparator"), rounds: try int("rounds"),
            memoryCost: try int("memoryCost"), cpuMemCost: try int("cpuMemCost"), blockSize: try int("blockSize"),
            parallelization: try int("parallelization"), dkLen: try int("dkLen"),
            inputOrder: try body.enumeration(
                "passwordHashOrder", names: ["UNSPECIFIED_ORDER", "SALT_AND_PASSWORD", "PASSWORD_AND_SALT"]
            ).flatMap(PasswordHashAlgorithm.InputOrder.init) ?? .unspecified,
            argon2: argon2)
        do {
            try description.validate()
        } catch {
            throw .code("INVALID_HASH_ALGORITHM", "\(error)")
        }
        return description
    }
}

/// Why one imported entry failed: a per-entry message, or a whole-request error.
private enum ImportFailure: Error {
    case entry(String)
    case request(AuthError)
}

/// One `users[]` entry of batchCreate, read as an account.
private enum ImportedUser {
    static func read(
        _ entry: AuthRequestBody, algorithm: PasswordHashAlgorithm?, project: FirebaseScrypt, now call: AuthCall
    ) throws(ImportFailure) -> UserRecord {
        do {
            guard let localId = try entry.string("localId"), !localId.isEmpty else { throw ImportFailure.entry("localId is missing") }
            guard localId.utf8.count <= AccountLimits.localIdBytes else { throw ImportFailure.entry("localId is invalid") }
            var user = UserRecord(localId: localId, createdAt: try entry.int64("createdAt") ?? call.nowMilliseconds)
            if let email = try entry.string("email") {
                guard AuthFormats.isValidEmail(email) else { throw ImportFailure.entry("email is invalid") }
                user.email = email.lowercased()
                user.emailVerified = try entry.bool("emailVerified") ?? false
            }
            if let phone = try entry.string("phoneNumber") {
                guard AuthFormats.isValidPhone(phone) else { throw ImportFailure.entry("phone number format is invalid") }
                user.phoneNumber = phone
            }
            let displayName = try entry.string("displayName")
            let photoUrl = try entry.string("photoUrl")
            user.displayName = try reported("displayName is invalid") { () throws(AuthError) in try AccountLimits.displayName(displayName) }
            user.photoUrl = try reported("photoUrl is invalid") { () throws(AuthError) in try AccountLimits.photoUrl(photoUrl) }
            user.disabled = try entry.bool("disabled") ?? false
            user.lastLoginAt = try entry.int64("lastLoginAt")
            user.validSince = call.now
            if let claims = try entry.string("customAttributes") {
                do throws(AuthError) {
                    try AuthFormats.validateCustomClaims(claims)
                } catch {
                    throw ImportFailure.entry(
                        error.message.hasPrefix("CLAIMS_TOO_LARGE")
                            ? "Custom claims provided are too large."
                            : error.message.hasPrefix("FORBIDDEN_CLAIM")
                                ? "Custom claims provided include a reserved claim." : "Invalid custom claims provided.")
                }
                user.customAttributes = claims == "{}" ? nil : claims
            }
            if let hashText = try entry.string("passwordHash"), let algorithm {
                guard let hash = Base64URL.decode(hashText), hash.count <= AccountLimits.importedHashBytes else {
                    throw ImportFailure.entry("passwordHash is invalid")
                }
                let salt = try entry.string("salt").flatMap { Base64URL.decode($0) } ?? []
                guard salt.count <= AccountLimits.importedHashBytes else { throw ImportFailure.entry("salt is invalid") }
                user.password = StoredPassword(hash: hash, salt: salt, importedWith: isProjectHash(algorithm, project) ? nil : algorithm)
                user.passwordUpdatedAt = call.nowMilliseconds
            }
            for provider in try entry.objects("providerUserInfo") {
                let providerId = try provider.string("providerId") ?? ""
                guard providerId != "password", providerId != "phone" else { continue }
                let rawId = try provider.string("rawId") ?? provider.string("federatedId") ?? ""
                guard !providerId.isEmpty, !rawId.isEmpty else {
                    throw ImportFailure.entry("federatedId or (providerId & rawId) is required")
                }
                let linked = LinkedProvider(
                    providerId: providerId, rawId: rawId, email: try provider.string("email")?.lowercased(),
                    displayName: try provider.string("displayName"), photoUrl: try provider.string("photoUrl"),
                    screenName: try provider.string("screenName"))
                try reported("providerUserInfo is invalid") { () throws(AuthError) in try AccountLimits.check(linked) }
                user.providers.append(linked)
            }
            return user
        } catch let failure as ImportFailure {
            throw failure
        } catch let error as AuthError {
            throw .request(error)
        } catch {
            throw .entry("\(error)")
        }
    }

    /// The result of `check`; its refusal fails only this entry, with `message`.
    private static func reported<Value>(_ message: String, _ check: () throws(AuthError) -> Value) throws(ImportFailure) -> Value {
        do {
            return try check()
        } catch {
            throw .entry(message)
        }
    }

    /// Whether `algorithm` is the project's own Firebase scrypt: such hashes need no re-hashing
    /// and export at version 0.
    private static func isProjectHash(_ algorithm: PasswordHashAlgorithm, _ project: FirebaseScrypt) -> Bool {
        algorithm.name == .scrypt && algorithm.signerKey == project.signerKey
            && (algorithm.saltSeparator ?? []) == project.saltSeparator && algorithm.rounds == project.rounds
            && algorithm.memoryCost == project.memoryCost
    }
}
