import HearthCore
import NIOCore

/// Identifies one registered listener, for removal.
public struct ListenerID: Sendable, Hashable {
    let group: ListenKey
    let serial: Int
}

/// The listeners that share a location, a query and an event format.
struct ListenKey: Sendable, Hashable {
    let location: DatabasePath
    let query: QueryParams
    let format: AnyEventFormat
}

/// An ``EventFormat`` of any type, comparable with any other.
struct AnyEventFormat: Sendable, Hashable {
    let base: any EventFormat

    static func == (lhs: AnyEventFormat, rhs: AnyEventFormat) -> Bool {
        lhs.base.isEqual(to: rhs.base)
    }

    func hash(into hasher: inout Hasher) {
        base.hash(into: &hasher)
    }
}

extension EventFormat {
    fileprivate func isEqual(to other: any EventFormat) -> Bool {
        (other as? Self) == self
    }
}

/// The listeners of one namespace, grouped so that each write is computed and encoded once per
/// location, query and format. Owned by ``NamespaceEngine``; not thread-safe on its own.
struct ListenerRegistry {
    struct Group {
        var sinks: [Int: any EventSink] = [:]
        /// For filtered queries: the window last sent, to detect changes.
        var lastWindow: Node
    }

    /// The events of one write, in the order they must be sent, with their recipients.
    struct Delivery: Sendable {
        let event: ByteBuffer
        let sinks: [any EventSink]
        let listenerIDs: [ListenerID]
    }

    private(set) var groups: [ListenKey: Group] = [:]
    /// A reference type: the registry lives in one engine and is never copied.
    private let locations = LocationIndex()
    private var nextSerial = 0

    /// Adds a listener; `window` is the data it starts with (the window for filtered queries).
    mutating func add(
        location: DatabasePath, query: QueryParams, format: some EventFormat, window: Node, sink: any EventSink
    ) -> ListenerID {
        let key = ListenKey(location: location, query: query, format: AnyEventFormat(base: format))
        nextSerial += 1
        if groups[key] == nil { locations.insert(key) }
        groups[key, default: Group(lastWindow: window)].sinks[nextSerial] = sink
        return ListenerID(group: key, serial: nextSerial)
    }

    mutating func remove(_ id: ListenerID) {
        groups[id.group]?.sinks[id.serial] = nil
        if groups[id.group]?.sinks.isEmpty == true {
            groups[id.group] = nil
            locations.remove(id.group)
        }
    }

    /// The deliveries `write` causes. `window` computes a filtered query's current window.
    mutating func deliveries(
        for write: AppliedWrite, window: (DatabasePath, QueryParams) -> Node
    ) -> [Delivery] {
        var deliveries: [Delivery] = []
        for key in locations.groups(touching: write.touchedPaths) {
            guard let group = groups[key] else { continue }
            let change: ViewChange?
            if key.query.loadsAllData {
                change = ViewChange.forLocation(key.location, write: write)
            } else {
                let current = window(key.location, key.query)
                if current == group.lastWindow {
                    change = nil
                } else {
                    groups[key]?.lastWindow = current
                    change = .put(path: .root, node: current)
                }
            }
            guard let change else { continue }
            let event = key.format.base.encode(change, location: key.location, query: key.query)
            deliveries.append(
                Delivery(
                    event: event, sinks: Array(group.sinks.values),
                    listenerIDs: group.sinks.keys.map { ListenerID(group: key, serial: $0) }))
        }
        return deliveries
    }
}
