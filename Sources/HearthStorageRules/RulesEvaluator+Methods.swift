import HearthCore

/// The methods of each type (spec storage-api §15).
extension RulesEvaluator {
    func callMethod(_ name: String, on target: StorageRulesValue, with arguments: [StorageRulesValue]) throws(RulesEvaluationError)
        -> StorageRulesValue
    {
        switch target {
        case .string(let string): return try stringMethod(name, string, arguments)
        case .list(let elements): return try listMethod(name, elements, arguments)
        case .set(let elements): return try setMethod(name, elements, arguments)
        case .map(let map): return try mapMethod(name, map, arguments)
        case .timestamp(let timestamp): return try timestampMethod(name, timestamp, arguments)
        case .duration(let duration):
            try expectArguments(0, name, arguments)
            switch name {
            case "seconds": return .int(duration.nanoseconds / 1_000_000_000)
            case "nanos": return .int(duration.nanoseconds % 1_000_000_000)
            case "toMillis": return .int(duration.nanoseconds / 1_000_000)
            default: break
            }
        case .mapDiff(let diff):
            try expectArguments(0, name, arguments)
            let keys: [String]? =
                switch name {
                case "addedKeys": diff.added
                case "removedKeys": diff.removed
                case "changedKeys": diff.changed
                case "affectedKeys": diff.affected
                case "unchangedKeys": diff.unchanged
                default: nil
                }
            if let keys { return .set(keys.map { .string($0) }) }
        case .bytes(let bytes):
            if name == "size" {
                try expectArguments(0, name, arguments)
                return .int(Int64(bytes.count))
            }
        case .path(let segments):
            if name == "bind" {
                try expectArguments(1, name, arguments)
                guard case .map(let values) = arguments[0] else { throw RulesEvaluationError("bind() needs a map") }
                return .path(
                    segments.map { segment in
                        guard segment.hasPrefix("$("), segment.hasSuffix(")"),
                            case .string(let value)? = values[String(segment.dropFirst(2).dropLast())]
                        else { return segment }
                        return value
                    })
            }
        case .null:
            throw RulesEvaluationError("null value has no method '\(name)()'")
        default:
            break
        }
        throw RulesEvaluationError("a \(target.typeName) has no method '\(name)()'")
    }

    func expectArguments(_ count: Int, _ name: String, _ arguments: [StorageRulesValue]) throws(RulesEvaluationError) {
        guard arguments.count == count else { throw RulesEvaluationError("\(name)() takes \(count) arguments, not \(arguments.count)") }
    }

    private func stringArgument(_ value: StorageRulesValue, _ name: String) throws(RulesEvaluationError) -> String {
        guard case .string(let string) = value else { throw RulesEvaluationError("\(name)() needs a string, not \(value.typeName)") }
        return string
    }

    private func stringMethod(_ name: String, _ string: String, _ arguments: [StorageRulesValue]) throws(RulesEvaluationError)
        -> StorageRulesValue
    {
        switch name {
        case "size", "lower", "upper", "trim", "toUtf8":
            try expectArguments(0, name, arguments)
            switch name {
            case "size": return .int(Int64(string.count))
            case "lower": return .string(string.lowercased())
            case "upper": return .string(string.uppercased())
            case "trim":
                return .string(
                    String(
                        string.unicodeScalars.drop(while: \.properties.isWhitespace).reversed()
                            .drop(while: \.properties.isWhitespace).reversed().map(Character.init)))
            default: return .bytes(Array(string.utf8))
            }
        case "matches":
            try expectArguments(1, name, arguments)
            return .bool(try RulesPattern(try stringArgument(arguments[0], name)).matchesWhole(string))
        case "split":
            try expectArguments(1, name, arguments)
            return .list(try RulesPattern(try stringArgument(arguments[0], name)).split(string).map { .string($0) })
        case "replace":
            try expectArguments(2, name, arguments)
            let pattern = try RulesPattern(try stringArgument(arguments[0], name))
            return .string(try pattern.replace(in: string, with: try stringArgument(arguments[1], name)))
        default:
            throw RulesEvaluationError("a string has no method '\(name)()'")
        }
    }

    private func listArgument(_ value: StorageRulesValue, _ name: String) throws(RulesEvaluationError) -> [StorageRulesValue] {
        switch value {
        case .list(let elements), .set(let elements): return elements
        default: throw RulesEvaluationError("\(name)() needs a list or set, not \(value.typeName)")
        }
    }

    /// The methods lists and sets share.
    private func collectionMethod(_ name: String, _ elements: [StorageRulesValue], _ arguments: [StorageRulesValue])
        throws(RulesEvaluationError) -> StorageRulesValue?
    {
        switch name {
        case "size":
            try expectArguments(0, name, arguments)
            return .int(Int64(elements.count))
        case "hasAll", "hasAny", "hasOnly":
            try expectArguments(1, name, arguments)
            let other = try listArgument(arguments[0], name)
            switch name {
            case "hasAll": return .bool(other.allSatisfy { elements.contains($0) })
            case "hasAny": return .bool(other.contains { elements.contains($0) })
            default: return .bool(elements.allSatisfy { other.contains($0) })
            }
        default:
            return nil
        }
    }

    private func listMethod(_ name: String, _ elements: [StorageRulesValue], _ arguments: [StorageRulesValue])
        throws(RulesEvaluationError) -> StorageRulesValue
    {
        if let shared = try collectionMethod(name, elements, arguments) { return shared }
        switch name {
        case "join":
            try expectArguments(1, name, arguments)
            let separator = try stringArgument(arguments[0], name)
            var strings: [String] = []
            for element in elements {
                guard case .string(let string) = element else { throw RulesEvaluationError("join() needs a list of strings") }
                strings.append(string)
            }
            return .string(strings.joined(separator: separator))
        case "concat":
            try expectArguments(1, name, arguments)
            return .list(elements + (try listArgument(arguments[0], name)))
        case "removeAll":
            try expectArguments(1, name, arguments)
            let removed = try listArgument(arguments[0], name)
            return .list(elements.filter { !removed.contains($0) })
        case "toSet":
            try expectArguments(0, name, arguments)
            return StorageRulesValue.makeSet(elements)
        default:
            throw RulesEvaluationError("a list has no method '\(name)()'")
        }
    }

    private func setMethod(_ name: String, _ elements: [StorageRulesValue], _ arguments: [StorageRulesValue])
        throws(RulesEvaluationError) -> StorageRulesValue
    {
        if let shared = try collectionMethod(name, elements, arguments) { return shared }
        guard ["difference", "intersection", "union"].contains(name) else {
            throw RulesEvaluationError("a set has no method '\(name)()'")
        }
        try expectArguments(1, name, arguments)
        let other = try listArgument(arguments[0], name)
        switch name {
        case "difference": return .set(elements.filter { !other.contains($0) })
        case "intersection": return .set(elements.filter { other.contains($0) })
        default: return StorageRulesValue.makeSet(elements + other)
        }
    }

    private func mapMethod(_ name: String, _ map: [String: StorageRulesValue], _ arguments: [StorageRulesValue])
        throws(RulesEvaluationError) -> StorageRulesValue
    {
        switch name {
        case "size":
            try expectArguments(0, name, arguments)
            return .int(Int64(map.count))
        case "keys":
            try expectArguments(0, name, arguments)
            return .list(map.keys.sorted().map { .string($0) })
        case "values":
            try expectArguments(0, name, arguments)
            return .list(map.keys.sorted().map { map[$0]! })
        case "get":
            try expectArguments(2, name, arguments)
            let keys: [StorageRulesValue] =
                if case .list(let path) = arguments[0] { path } else { [arguments[0]] }
            var current = StorageRulesValue.map(map)
            for key in keys {
                guard case .string(let key) = key else { throw RulesEvaluationError("get() keys must be strings") }
                guard case .map(let level) = current, let next = level[key] else { return arguments[1] }
                current = next
            }
            return current
        case "diff":
            try expectArguments(1, name, arguments)
            guard case .map(let other) = arguments[0] else { throw RulesEvaluationError("diff() needs a map") }
            return .mapDiff(RulesMapDiff(left: map, right: other))
        default:
            throw RulesEvaluationError("a map has no method '\(name)()'")
        }
    }

    private func timestampMethod(_ name: String, _ timestamp: RulesTimestamp, _ arguments: [StorageRulesValue])
        throws(RulesEvaluationError) -> StorageRulesValue
    {
        try expectArguments(0, name, arguments)
        let civil = CivilTime(secondsSinceEpoch: timestamp.seconds)
        switch name {
        case "year": return .int(civil.year)
        case "month": return .int(civil.month)
        case "day": return .int(civil.day)
        case "hours": return .int(civil.secondOfDay / 3600)
        case "minutes": return .int(civil.secondOfDay / 60 % 60)
        case "seconds": return .int(civil.secondOfDay % 60)
        case "nanos": return .int(timestamp.nanos)
        case "dayOfWeek": return .int(civil.dayOfWeek)
        case "dayOfYear": return .int(civil.dayOfYear)
        case "toMillis": return .int(timestamp.seconds * 1000 + timestamp.nanos / 1_000_000)
        case "date": return .timestamp(RulesTimestamp(seconds: timestamp.seconds - civil.secondOfDay))
        case "time": return .duration(RulesDuration(nanoseconds: civil.secondOfDay * 1_000_000_000 + timestamp.nanos))
        default: throw RulesEvaluationError("a timestamp has no method '\(name)()'")
        }
    }
}
