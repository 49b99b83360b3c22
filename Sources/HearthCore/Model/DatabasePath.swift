/// A location in a database: the keys from the root down, validated.
///
/// The root is the empty path. Paths print as `/a/b` (`/` for the root) and are parsed leniently
/// as Firebase clients send them: empty segments are ignored, so `a//b/` is `/a/b`.
public struct DatabasePath: Sendable, Hashable, CustomStringConvertible {
    /// The keys from the root down.
    public let keys: [ChildKey]

    /// The root of a database.
    public static let root = DatabasePath(validatedKeys: [])

    /// Builds a path from keys that are already known to be valid.
    public init(validatedKeys keys: [ChildKey]) {
        self.keys = keys
    }

    /// Parses a slash-separated path, rejecting invalid keys and paths deeper than 32 levels.
    public init(_ string: String) throws(PathError) {
        try self.init(validating: Self.segments(of: string))
    }

    /// The last key of a path that names a node's priority (`/a/.priority`).
    public static let priorityKey = ChildKey(".priority")

    /// Parses the location of a write: a path, optionally ending in `.priority` to name only the
    /// priority of the node before it (Firebase's `PUT /a/.priority.json`, `{"a/.priority": 1}`).
    public init(writeLocation string: String) throws(PathError) {
        var segments = Self.segments(of: string)
        let namesPriority = segments.last == Self.priorityKey.string
        if namesPriority { segments.removeLast() }
        let owner = try DatabasePath(validating: segments)
        self = namesPriority ? owner.child(Self.priorityKey) : owner
    }

    private init(validating segments: [String]) throws(PathError) {
        var keys: [ChildKey] = []
        keys.reserveCapacity(segments.count)
        for segment in segments {
            guard KeyValidation.isValidKey(segment) else { throw .invalidKey(segment) }
            keys.append(ChildKey(segment))
        }
        guard keys.count <= KeyValidation.maximumDepth else { throw .tooDeep }
        self.keys = keys
    }

    /// The non-empty segments between slashes, split on UTF-8 bytes (a slash is never part of
    /// a longer character).
    private static func segments(of string: String) -> [String] {
        var segments: [String] = []
        let utf8 = string.utf8
        var segmentStart = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                if segmentStart != index { segments.append(String(decoding: utf8[segmentStart..<index], as: UTF8.self)) }
                segmentStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if segmentStart != index { segments.append(String(decoding: utf8[segmentStart..<index], as: UTF8.self)) }
        return segments
    }

    /// For a path ending in `.priority`, the path of the node whose priority it names.
    public var priorityOwner: DatabasePath? {
        keys.last == Self.priorityKey ? parent : nil
    }

    public var isRoot: Bool { keys.isEmpty }
    public var count: Int { keys.count }

    /// The path one level up; the root's parent is the root.
    public var parent: DatabasePath { DatabasePath(validatedKeys: Array(keys.dropLast())) }

    public func child(_ key: ChildKey) -> DatabasePath {
        DatabasePath(validatedKeys: keys + [key])
    }

    public func appending(_ other: DatabasePath) -> DatabasePath {
        DatabasePath(validatedKeys: keys + other.keys)
    }

    /// Whether `self` is `other` or lies above it.
    public func contains(_ other: DatabasePath) -> Bool {
        other.keys.count >= keys.count && other.keys.starts(with: keys)
    }

    /// `other` relative to `self`, or `nil` when `other` is not at or below `self`.
    public func relativePath(to other: DatabasePath) -> DatabasePath? {
        guard contains(other) else { return nil }
        return DatabasePath(validatedKeys: Array(other.keys.dropFirst(keys.count)))
    }

    /// `/a/b`, or `/` for the root.
    public var description: String {
        keys.isEmpty ? "/" : keys.reduce(into: "") { $0 += "/" + $1.string }
    }

    /// The first path of `paths` found at or above another of them (with that other), or
    /// `nil` when none overlap: a multi-path update may not name both.
    public static func firstOverlap(in paths: [DatabasePath]) -> (ancestor: DatabasePath, descendant: DatabasePath)? {
        // In key order a path sorts right before the paths below it, so neighbours suffice.
        let sorted = paths.sorted { $0.keys.lexicographicallyPrecedes($1.keys) }
        for (first, second) in zip(sorted, sorted.dropFirst()) where first.contains(second) {
            return (first, second)
        }
        return nil
    }

    /// `a/b`, or the empty string for the root: the form the WebSocket protocol uses.
    public var slashless: String {
        keys.map(\.string).joined(separator: "/")
    }
}

/// Why a path was refused.
public enum PathError: Error, Sendable, Equatable {
    /// A segment holds a forbidden character, is too long, or is otherwise not a valid key.
    case invalidKey(String)
    /// The path has more than 32 levels.
    case tooDeep
}
