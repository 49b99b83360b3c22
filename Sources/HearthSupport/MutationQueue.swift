/// Runs asynchronous critical sections one at a time, in arrival order: reading an object's
/// metadata, changing it and storing it must not interleave with another change of it; a
/// transaction of several statements must not interleave with another one on its connection.
package actor MutationQueue {
    package init() {}

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package func run<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        await enter()
        defer { leave() }
        return try await body()
    }

    /// Waits until no other section runs, then counts the caller's as running: for a section
    /// that cannot be handed over as a `@Sendable` closure. Every ``enter()`` needs its ``leave()``.
    package func enter() async {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
    }

    /// Ends the caller's section and lets the next one run.
    package func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
