/// Limits on resumable uploads, whose bytes wait on the server until a finalize: how long a
/// session may sit idle, and how many open sessions and unfinished bytes one caller may hold.
///
/// A caller is a user ID, or the client's IP address when signed out (``StorageCaller/uploadOwner(clientAddress:)``);
/// admin callers are not capped.
public struct ResumableUploadLimits: Sendable {
    /// How long a session may go without a start, chunk, finalize or cancel before it and its
    /// bytes are deleted (GCS: a week).
    public var idleExpiry: Duration = .seconds(7 * 24 * 3600)
    /// Open sessions per caller.
    public var sessionsPerCaller = 100
    /// Bytes the open sessions of one caller may hold together (which also bounds one
    /// resumable upload of a caller).
    public var unfinishedBytesPerCaller: Int64 = 10 << 30

    public init() {}

    var idleExpiryMilliseconds: Int64 {
        idleExpiry.components.seconds * 1000 + idleExpiry.components.attoseconds / 1_000_000_000_000_000
    }
}

extension StorageCaller {
    /// Whose allowance a resumable upload uses: `uid:<uid>` for a user, `ip:<address>` for a
    /// signed-out caller, `nil` (no cap) for admin.
    func uploadOwner(clientAddress: String) -> String? {
        switch self {
        case .admin: nil
        case .signedOut: "ip:\(clientAddress)"
        case .user(let uid, _): "uid:\(uid)"
        }
    }
}
