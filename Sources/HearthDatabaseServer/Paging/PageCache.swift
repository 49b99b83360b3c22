import HearthEdge
import Synchronization

/// How much memory the pages loaded from every namespace's file may take, and which of them to
/// drop when they take more: the least recently used of those that may be dropped (a clock that
/// gives each page read since its last visit a second chance).
///
/// A page counts here from its load until it is dropped, freed or pinned (a write changed a copy
/// of it, which the engine's tree now holds). Sizes are estimates from the rows read.
package final class PageCache: Sendable {
    /// The bytes of loaded pages past which pages are dropped, down to 90% of it.
    package let capacity: Int
    private let residentBytes = Atomic<Int>(0)
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let clock = Mutex(Clock())
    /// Where the hits, misses and bytes are reported.
    private let metrics: TrafficMetrics

    /// The pages counted, in the order the clock's hand visits them.
    private struct Clock {
        var pages: [WeakPage] = []
        var hand = 0

        /// Removes the entry under the hand; the last entry takes its place.
        mutating func removeUnderHand() {
            pages.swapAt(hand, pages.count - 1)
            pages.removeLast()
        }
    }

    private struct WeakPage {
        weak var page: ChildPage?
    }

    /// The most entries one eviction visits: past it, the next page loaded goes on.
    private static let maximumVisits = 1024
    /// Entries every admission looks at for pages freed meanwhile, whatever the bytes.
    private static let sweepPerAdmission = 2

    /// A cache of `capacity` bytes, reporting to `metrics`.
    package init(capacity: Int, metrics: TrafficMetrics = TrafficMetrics()) {
        self.capacity = capacity
        self.metrics = metrics
    }

    /// The bytes the loaded pages take now, by estimate.
    package var bytes: Int { residentBytes.load(ordering: .relaxed) }

    /// How many page reads found the page loaded, and how many loaded it.
    package var lookups: (hits: Int, misses: Int) {
        (hits.load(ordering: .relaxed), misses.load(ordering: .relaxed))
    }

    /// Records a read of a page that was loaded.
    func hit() {
        hits.add(1, ordering: .relaxed)
        metrics.databaseCacheHits.increment()
    }

    /// Counts `page`, just loaded, at `bytes`, and drops others if the pages now take more
    /// than the capacity.
    func admit(_ page: ChildPage, bytes: Int) {
        missed()
        adopt(page, bytes: bytes)
    }

    /// Records a read that went to the disk.
    func missed() {
        misses.add(1, ordering: .relaxed)
        metrics.databaseCacheMisses.increment()
    }

    /// Counts `page`, made from entries already in memory, at `bytes`, and drops others if the
    /// pages now take more than the capacity.
    func adopt(_ page: ChildPage, bytes: Int) {
        let total = residentBytes.add(bytes, ordering: .relaxed).newValue
        metrics.databaseCacheBytes.set(total)
        clock.withLock { clock in
            clock.pages.append(WeakPage(page: page))
            sweep(&clock, visits: Self.sweepPerAdmission, downTo: total > capacity ? capacity / 10 * 9 : nil)
        }
    }

    /// Stops counting `bytes` of a page dropped, freed or pinned.
    func release(_ bytes: Int) {
        metrics.databaseCacheBytes.set(residentBytes.subtract(bytes, ordering: .relaxed).newValue)
    }

    /// Moves the clock's hand over up to `visits` entries, removing those whose page is gone
    /// or not loaded; with a `target`, over up to ``maximumVisits``, dropping pages until the
    /// rest take at most `target` bytes. A page read since the hand last passed it gets a
    /// second chance; one being loaded, pinned or listened to stays.
    private func sweep(_ clock: inout Clock, visits: Int, downTo target: Int?) {
        var visited = 0
        while !clock.pages.isEmpty, visited < (target == nil ? visits : Self.maximumVisits) {
            if let target, bytes <= target { return }
            visited += 1
            if clock.hand >= clock.pages.count { clock.hand = 0 }
            guard let page = clock.pages[clock.hand].page else {
                clock.removeUnderHand()
                continue
            }
            switch target == nil ? (page.isLoaded ? .kept : .notLoaded) : page.evict() {
            case .dropped, .notLoaded: clock.removeUnderHand()
            case .kept: clock.hand += 1
            }
        }
    }
}
