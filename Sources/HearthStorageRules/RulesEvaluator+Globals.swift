import Crypto
import HearthCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The global functions (`path()`, `int()`, …) and namespaces (`math`, `duration`,
/// `timestamp`, `hashing`) of the rules language.
extension RulesEvaluator {
    func callGlobal(_ name: String, with arguments: [StorageRulesValue]) throws(RulesEvaluationError) -> StorageRulesValue {
        try expectArguments(1, name, arguments)
        let argument = arguments[0]
        switch (name, argument) {
        case ("debug", _): return argument
        case ("path", .string(let string)):
            return .path(string.split(separator: "/", omittingEmptySubsequences: true).map(String.init))
        case ("int", .int): return argument
        case ("int", .float(let number)):
            guard number.isFinite, let integer = Int64(exactly: number.rounded(.towardZero)) else {
                throw RulesEvaluationError("\(number) does not fit an int")
            }
            return .int(integer)
        case ("int", .string(let string)):
            guard let integer = Int64(string) else { throw RulesEvaluationError("'\(string)' is not an int") }
            return .int(integer)
        case ("float", .int(let number)): return .float(Double(number))
        case ("float", .float): return argument
        case ("float", .string(let string)):
            guard let number = Double(string) else { throw RulesEvaluationError("'\(string)' is not a float") }
            return .float(number)
        case ("string", .string): return argument
        case ("string", .int(let number)): return .string(String(number))
        case ("string", .float(let number)): return .string(String(number))
        case ("string", .bool(let value)): return .string(String(value))
        case ("string", .null): return .string("null")
        case ("string", .path(let segments)): return .string(segments.joined(separator: "/"))
        case ("bool", .bool): return argument
        case ("bool", .string("true")): return .bool(true)
        case ("bool", .string("false")): return .bool(false)
        default: throw RulesEvaluationError("\(name)() cannot take a \(argument.typeName)")
        }
    }

    func callNamespaced(_ namespace: String, _ name: String, with arguments: [StorageRulesValue]) throws(RulesEvaluationError)
        -> StorageRulesValue
    {
        switch namespace {
        case "math": return try math(name, arguments)
        case "duration": return try durationFunction(name, arguments)
        case "timestamp": return try timestampFunction(name, arguments)
        case "hashing": return try hashing(name, arguments)
        default: throw RulesEvaluationError("\(namespace).\(name)() is not supported by Hearth")
        }
    }

    func number(_ value: StorageRulesValue, _ name: String) throws(RulesEvaluationError) -> Double {
        switch value {
        case .int(let integer): return Double(integer)
        case .float(let number): return number
        default: throw RulesEvaluationError("\(name)() needs a number, not \(value.typeName)")
        }
    }

    private func integer(_ value: StorageRulesValue, _ name: String) throws(RulesEvaluationError) -> Int64 {
        guard case .int(let integer) = value else { throw RulesEvaluationError("\(name)() needs an int, not \(value.typeName)") }
        return integer
    }

    private func math(_ name: String, _ arguments: [StorageRulesValue]) throws(RulesEvaluationError) -> StorageRulesValue {
        if name == "pow" {
            try expectArguments(2, name, arguments)
            return .float(pow(try number(arguments[0], name), try number(arguments[1], name)))
        }
        try expectArguments(1, name, arguments)
        let argument = arguments[0]
        switch name {
        case "abs":
            if case .int(let integer) = argument {
                guard integer != .min else { throw RulesEvaluationError("integer overflow in abs()") }
                return .int(Swift.abs(integer))
            }
            return .float(Swift.abs(try number(argument, name)))
        case "ceil", "floor", "round":
            let rule: FloatingPointRoundingRule = name == "ceil" ? .up : name == "floor" ? .down : .toNearestOrAwayFromZero
            let rounded = try number(argument, name).rounded(rule)
            guard let integer = Int64(exactly: rounded) else { throw RulesEvaluationError("\(rounded) does not fit an int") }
            return .int(integer)
        case "sqrt": return .float(try number(argument, name).squareRoot())
        case "isInfinite": return .bool(try number(argument, name).isInfinite)
        case "isNaN": return .bool(try number(argument, name).isNaN)
        default: throw RulesEvaluationError("math.\(name)() does not exist")
        }
    }

    private func durationFunction(_ name: String, _ arguments: [StorageRulesValue]) throws(RulesEvaluationError) -> StorageRulesValue {
        switch name {
        case "value":
            try expectArguments(2, name, arguments)
            let amount = try integer(arguments[0], name)
            guard case .string(let unit) = arguments[1], let scale = Self.durationUnits[unit] else {
                throw RulesEvaluationError("duration.value() units are 'w', 'd', 'h', 'm', 's', 'ms' and 'ns'")
            }
            let (nanoseconds, overflow) = amount.multipliedReportingOverflow(by: scale)
            guard !overflow else { throw RulesEvaluationError("duration out of range") }
            return .duration(RulesDuration(nanoseconds: nanoseconds))
        case "time":
            try expectArguments(4, name, arguments)
            var total: Int64 = 0
            for (argument, scale) in zip(arguments, [3_600_000_000_000, 60_000_000_000, 1_000_000_000, 1] as [Int64]) {
                let (part, overflow) = try integer(argument, name).multipliedReportingOverflow(by: scale)
                let (sum, sumOverflow) = total.addingReportingOverflow(part)
                guard !overflow, !sumOverflow else { throw RulesEvaluationError("duration out of range") }
                total = sum
            }
            return .duration(RulesDuration(nanoseconds: total))
        case "abs":
            try expectArguments(1, name, arguments)
            guard case .duration(let duration) = arguments[0] else { throw RulesEvaluationError("duration.abs() needs a duration") }
            return duration.nanoseconds < 0 ? try negated(arguments[0]) : arguments[0]
        default:
            throw RulesEvaluationError("duration.\(name)() does not exist")
        }
    }

    private static let durationUnits: [String: Int64] = [
        "w": 604_800_000_000_000, "d": 86_400_000_000_000, "h": 3_600_000_000_000, "m": 60_000_000_000,
        "s": 1_000_000_000, "ms": 1_000_000, "ns": 1,
    ]

    private func timestampFunction(_ name: String, _ arguments: [StorageRulesValue]) throws(RulesEvaluationError) -> StorageRulesValue {
        switch name {
        case "date":
            try expectArguments(3, name, arguments)
            let (year, month, day) = (try integer(arguments[0], name), try integer(arguments[1], name), try integer(arguments[2], name))
            guard (1...9999).contains(year), (1...12).contains(month), (1...CivilTime.days(inMonth: month, of: year)).contains(day) else {
                throw RulesEvaluationError("timestamp.date(\(year), \(month), \(day)) is not a date")
            }
            return .timestamp(RulesTimestamp(seconds: CivilTime.daysSinceEpoch(year: year, month: month, day: day) * 86_400))
        case "value":
            try expectArguments(1, name, arguments)
            return .timestamp(try RulesTimestamp(milliseconds: try integer(arguments[0], name)).checked())
        default:
            throw RulesEvaluationError("timestamp.\(name)() does not exist")
        }
    }

    private func hashing(_ name: String, _ arguments: [StorageRulesValue]) throws(RulesEvaluationError) -> StorageRulesValue {
        try expectArguments(1, name, arguments)
        let input: [UInt8]
        switch arguments[0] {
        case .string(let string): input = Array(string.utf8)
        case .bytes(let bytes): input = bytes
        default: throw RulesEvaluationError("hashing.\(name)() needs a string or bytes")
        }
        switch name {
        case "md5": return .bytes(Array(Insecure.MD5.hash(data: input)))
        case "sha256": return .bytes(Array(SHA256.hash(data: input)))
        default: throw RulesEvaluationError("hashing.\(name)() is not supported by Hearth")
        }
    }
}
