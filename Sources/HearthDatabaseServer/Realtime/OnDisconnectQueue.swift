import HearthCore

/// The writes one connection asked to apply when it ends (`o`, `om`; protocol §5.9), in the
/// order they were registered.
struct OnDisconnectQueue {
    private(set) var writes: [QueuedWrite] = []

    mutating func add(_ write: QueuedWrite) {
        writes.append(write)
    }

    /// Cancels every queued write at `location` and below (`oc`). A write queued above it stays
    /// queued but leaves `location` as it then is, as `OnDisconnect.cancel()` documents.
    mutating func cancel(at location: DatabasePath) {
        writes = writes.compactMap { write in
            var write = write
            switch write.kind {
            case .set:
                if location.contains(write.path) { return nil }
            case .update(let entries):
                let kept = entries.filter { !location.contains(write.path.appending($0.0)) }
                if kept.isEmpty { return nil }
                write.kind = .update(kept)
            }
            if write.path.contains(location) { write.preserving.append(location) }
            return write
        }
    }
}
