import HearthCore
import HearthEdge
import Metrics
import NIOCore

/// Identifies one registered listener, for removal.
public struct ListenerID: Sendable, Hashable {
    let group: ListenKey
    let serial: Int

    var location: DatabasePath { group.location }
}

/// The listeners that share a location, a query and an event format.
struct ListenKey: Sendable, Hashable {
    let location: DatabasePath
    let query: QueryParams
    let format: AnyEventFormat
    /// The query orders without an `.indexOn`: its listeners were sent the whole location and
    /// are kept current child by child (``ViewChange/forUnindexedQuery(_:write:previousWindow:window:)``).
    let isUnindexed: Bool
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
    /// One listener: where its events go, and what its read was authorized for, to check it
    /// again when the rules or its caller change.
    struct Member {
        let sink: any EventSink
        var caller: Caller
        /// The query the caller asked for (the group's may be the whole location instead).
        let authorizedQuery: QueryParams
    }

    struct Group {
        var members: [Int: Member] = [:]
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
    /// The server's count of listeners, which this registry's add to.
    private let count: Meter
    /// The locations listened to, as the namespace's pages see them.
    private let listened: ListenedPaths

    init(count: Meter, listened: ListenedPaths) {
        self.count = count
        self.listened = listened
    }

    /// Adds a listener; `window` is the query's window now (the whole location without a filter).
    mutating func add(
        location: DatabasePath, query: QueryParams, isUnindexed: Bool, format: some EventFormat, window: Node,
        member: Member
    ) -> ListenerID {
        let key = ListenKey(location: location, query: query, format: AnyEventFormat(base: format), isUnindexed: isUnindexed)
        nextSerial += 1
        if groups[key] == nil {
            locations.insert(key)
            listened.insert(location)
        }
        groups[key, default: Group(lastWindow: window)].members[nextSerial] = member
        count.increment()
        return ListenerID(group: key, serial: nextSerial)
    }

    /// The listener `id`, if it is registered.
    subscript(id: ListenerID) -> Member? {
        get { groups[id.group]?.members[id.serial] }
        set { groups[id.group]?.members[id.serial] = newValue }
    }

    /// Every listener whose reads the rules decide (not admins), with its location.
    var ruledListeners: [(id: ListenerID, location: DatabasePath, member: Member)] {
        groups.flatMap { key, group in
            group.members.compactMap { serial, member in
                member.caller == .admin ? nil : (ListenerID(group: key, serial: serial), key.location, member)
            }
        }
    }

    mutating func remove(_ id: ListenerID) {
        guard groups[id.group]?.members.removeValue(forKey: id.serial) != nil else { return }
        count.decrement()
        if groups[id.group]?.members.isEmpty == true {
            groups[id.group] = nil
            locations.remove(id.group)
            listened.remove(id.location)
        }
    }

    /// Each location and query listened to, with its number of listeners, whatever their format.
    var summary: [ListenerSummary] {
        var counts: [ListenerSummary.Key: Int] = [:]
        for (key, group) in groups {
            let summaryKey = ListenerSummary.Key(location: key.location, query: key.query, isUnindexed: key.isUnindexed)
            counts[summaryKey, default: 0] += group.members.count
        }
        return counts.map { ListenerSummary(key: $0.key, listeners: $0.value) }
    }

    /// The deliveries `write` causes. `window` computes a filtered query's current window.
    mutating func deliveries(for write: AppliedWrite, window: (ListenKey) -> Node) -> [Delivery] {
        var deliveries: [Delivery] = []
        for key in locations.groups(touching: write.touchedPaths) {
            guard let group = groups[key] else { continue }
            let change: ViewChange?
            if key.query.loadsAllData {
                change = ViewChange.forLocation(key.location, write: write)
            } else {
                let current = window(key)
                if key.isUnindexed {
                    change = ViewChange.forUnindexedQuery(
                        key.location, write: write, previousWindow: group.lastWindow, window: current)
                } else {
                    change = current == group.lastWindow ? nil : .put(path: .root, node: current)
                }
                if current != group.lastWindow { groups[key]?.lastWindow = current }
            }
            guard let change else { continue }
            let event = key.format.base.encode(change, location: key.location, query: key.query)
            deliveries.append(
                Delivery(
                    event: event, sinks: group.members.values.map(\.sink),
                    listenerIDs: group.members.keys.map { ListenerID(group: key, serial: $0) }))
        }
        return deliveries
    }
}
