/// The kinds of events an observer can ask for, as Firebase names them.
public enum DataEventType: Int, Sendable, Hashable, CaseIterable {
    /// A child was added, or entered a query's window.
    case childAdded = 0
    /// A child was removed, or left a query's window.
    case childRemoved = 1
    /// A child's value or priority changed.
    case childChanged = 2
    /// A child's position in the query's order changed.
    case childMoved = 3
    /// The whole value at the location, every time it changes.
    case value = 4
}

/// Identifies an observer for `removeObserver(withHandle:)`.
public typealias DatabaseHandle = UInt
