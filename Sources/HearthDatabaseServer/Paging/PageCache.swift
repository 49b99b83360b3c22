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
    private let clock = Mutex<[WeakPage]>([])

    private struct WeakPage {
        weak var page: ChildPage?
    }

    /// A cache of `capacity` bytes.
    package init(capacity: Int) {
        self.capacity = capacity
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
    }

    /// Counts `page`, just loaded, at `bytes`, and drops others if the pages now take more
    /// than the capacity.
    func admit(_ page: ChildPage, bytes: Int) {
        misses.add(1, ordering: .relaxed)
        let total = residentBytes.add(bytes, ordering: .relaxed).newValue
        clock.withLock { $0.append(WeakPage(page: page)) }
        if total > capacity { evict(downTo: capacity / 10 * 9) }
    }

    /// Stops counting `bytes` of a page dropped, freed or pinned.
    func release(_ bytes: Int) {
        residentBytes.subtract(bytes, ordering: .relaxed)
    }

    /// Drops pages, least recently used first, until the rest take at most `target` bytes or
    /// none is left that may be dropped. A page being loaded, pinned, or under a listener stays.
    private func evict(downTo target: Int) {
        clock.withLock { pages in
            for _ in 0..<2 {
                var kept: [WeakPage] = []
                kept.reserveCapacity(pages.count)
                for entry in pages {
                    guard let page = entry.page else { continue }
                    guard bytes > target else {
                        kept.append(entry)
                        continue
                    }
                    switch page.evict() {
                    case .dropped, .notLoaded: continue
                    case .kept: kept.append(entry)
                    }
                }
                pages = kept
                if bytes <= target { return }
            }
        }
    }
}
