import Foundation

/// The events one operation raised, in the order observers must see them; delivered together
/// on the callback queue.
struct EventBatch {
    private(set) var deliveries: [@Sendable () -> Void] = []

    mutating func event(_ registration: EventRegistration, _ snapshot: DataSnapshot, previousSiblingKey: String?) {
        deliveries.append { registration.deliver(snapshot, previousSiblingKey: previousSiblingKey) }
    }

    mutating func cancel(_ registration: EventRegistration, _ error: any Error & Sendable) {
        deliveries.append { registration.deliverCancel(error) }
    }

    /// Any other callback (a write's completion), in order with the events.
    mutating func callback(_ body: @escaping @Sendable () -> Void) {
        deliveries.append(body)
    }

    /// Hands the batch to `queue`, preserving order.
    func raise(on queue: DispatchQueue) {
        guard !deliveries.isEmpty else { return }
        let deliveries = deliveries
        queue.async {
            for delivery in deliveries { delivery() }
        }
    }
}
