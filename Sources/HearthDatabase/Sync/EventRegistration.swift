import Foundation

/// One observer: what it asked for and the blocks to call.
///
/// Events travel from the sync engine's worker queue to the app's callback queue; an observer
/// removed meanwhile must not see events produced before its removal was processed, so each
/// delivery checks ``isActive`` on the callback queue.
final class EventRegistration: @unchecked Sendable {
    let handle: DatabaseHandle
    /// `nil` for hidden registrations (`keepSynced`, transactions) that keep a listen alive and
    /// receive nothing.
    let eventType: DataEventType?
    private let onEvent: (DataSnapshot, String?) -> Void
    private let onCancel: ((any Error) -> Void)?
    private let lock = NSLock()
    private var active = true

    init(
        handle: DatabaseHandle, eventType: DataEventType?, onEvent: @escaping (DataSnapshot, String?) -> Void,
        onCancel: ((any Error) -> Void)?
    ) {
        self.handle = handle
        self.eventType = eventType
        self.onEvent = onEvent
        self.onCancel = onCancel
    }

    var isActive: Bool { lock.withLock { active } }

    /// Stops deliveries, including ones already queued.
    func deactivate() {
        lock.withLock { active = false }
    }

    /// Runs on the callback queue.
    func deliver(_ snapshot: DataSnapshot, previousSiblingKey: String?) {
        guard isActive else { return }
        onEvent(snapshot, previousSiblingKey)
    }

    /// Runs on the callback queue; the registration was already removed from its view.
    func deliverCancel(_ error: any Error) {
        guard let onCancel,
            lock.withLock({
                defer { active = false }
                return active
            })
        else { return }
        onCancel(error)
    }
}
