import DequeModule

/// The messages waiting for one client, and the bound that says the client is not reading.
///
/// The oldest waiting message is the one the client is receiving; what waits behind it may not
/// pass the limit. So one message larger than the limit — the data of a big listen — still goes
/// out, with the response behind it, to a client that reads it: Firebase serves reads of up to
/// 256 MB, and the limit is about clients that stop reading, not about how much they read.
struct Backlog {
    let limit: Int
    private var sizes: Deque<Int> = []
    private var bytesBehindOldest = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more waiting message of `count` bytes; `false` (and nothing counted) when the
    /// client is not keeping up.
    mutating func admit(_ count: Int) -> Bool {
        if !sizes.isEmpty {
            guard bytesBehindOldest + count <= limit else { return false }
            bytesBehindOldest += count
        }
        sizes.append(count)
        return true
    }

    /// The oldest waiting message went out.
    mutating func releaseOldest() {
        guard sizes.popFirst() != nil else { return }
        bytesBehindOldest -= sizes.first ?? 0
    }

    /// Every waiting message went out.
    mutating func clear() {
        sizes = []
        bytesBehindOldest = 0
    }
}
