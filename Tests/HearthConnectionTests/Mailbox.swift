import Foundation

/// Collects values posted from any thread, in order, and lets a test wait for the next one that
/// matches, with a timeout.
final class Mailbox<Element: Sendable>: @unchecked Sendable {
    struct TimedOut: Error, CustomStringConvertible {
        let description: String
    }

    private struct Waiter {
        let matches: @Sendable (Element) -> Bool
        let continuation: CheckedContinuation<Element?, Never>
    }

    private let lock = NSLock()
    /// Everything posted, in order.
    private var history: [Element] = []
    /// Posted values no waiter took yet.
    private var unclaimed: [Element] = []
    private var waiters: [UUID: Waiter] = [:]

    func post(_ element: Element) {
        let waiter: Waiter? = lock.withLock {
            history.append(element)
            if let (id, waiter) = waiters.first(where: { $0.value.matches(element) }) {
                waiters[id] = nil
                return waiter
            }
            unclaimed.append(element)
            return nil
        }
        waiter?.continuation.resume(returning: element)
    }

    /// Everything posted so far, in order.
    var all: [Element] {
        lock.withLock { history }
    }

    /// Takes the first unclaimed value that matches, waiting up to `timeout` for one.
    @discardableResult
    func take(
        _ what: String, timeout: Duration = .seconds(30), where matches: @escaping @Sendable (Element) -> Bool
    ) async throws -> Element {
        let id = UUID()
        let element: Element? = await withCheckedContinuation { continuation in
            let found: Element? = lock.withLock {
                if let index = unclaimed.firstIndex(where: matches) { return unclaimed.remove(at: index) }
                waiters[id] = Waiter(matches: matches, continuation: continuation)
                return nil
            }
            if let found {
                continuation.resume(returning: found)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
        guard let element else { throw TimedOut(description: "timed out waiting for \(what)") }
        return element
    }

    private func expire(_ id: UUID) {
        lock.withLock { waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
    }
}
