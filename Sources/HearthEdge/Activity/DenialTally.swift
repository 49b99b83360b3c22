import CoreMetrics
import Metrics
import Synchronization

/// Rules denials: a counter per product for `/metrics`, and per product and path for the
/// console's traffic view, where the number of paths kept is bounded (any client can provoke
/// denials at paths of its choosing).
package final class DenialTally: Sendable {
    /// Denials at one path.
    package struct Entry: Sendable {
        package let product: String
        package let path: String
        package var count: Int
    }

    /// How many distinct paths are kept; denials at further paths count under `other`.
    package static let pathLimit = 500

    private let counters: [String: Counter]
    private let byPath = Mutex<[String: Entry]>([:])

    init(counters: [(String, Counter)]) {
        self.counters = Dictionary(uniqueKeysWithValues: counters)
    }

    /// Counts a denial by `product` at `path`.
    package func count(product: String, path: String) {
        counters[product]?.increment()
        let key = product + " " + path
        byPath.withLock { entries in
            if entries[key] != nil {
                entries[key]!.count += 1
            } else if entries.count < Self.pathLimit {
                entries[key] = Entry(product: product, path: path, count: 1)
            } else {
                entries[product + " other", default: Entry(product: product, path: "other", count: 0)].count += 1
            }
        }
    }

    /// The paths with the most denials first.
    package func top(_ limit: Int) -> [Entry] {
        byPath.withLock { Array($0.values) }.sorted { $0.count > $1.count }.prefix(limit).map { $0 }
    }
}
