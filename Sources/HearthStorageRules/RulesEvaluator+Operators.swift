/// Arithmetic, comparison, membership, member access, indexing and slicing.
extension RulesEvaluator {
    func apply(_ op: BinaryOperator, _ left: StorageRulesValue, _ right: StorageRulesValue) throws(RulesEvaluationError)
        -> StorageRulesValue
    {
        switch op {
        case .equal: return .bool(left == right)
        case .notEqual: return .bool(left != right)
        case .in: return .bool(try contains(right, left))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order = try compare(left, right, op)
            if order == Self.unordered { return .bool(false) }
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .add, .subtract, .multiply, .divide, .remainder:
            return try arithmetic(op, left, right)
        }
    }

    private func contains(_ container: StorageRulesValue, _ element: StorageRulesValue) throws(RulesEvaluationError) -> Bool {
        switch container {
        case .list(let elements), .set(let elements): return elements.contains(element)
        case .map(let map):
            guard case .string(let key) = element else { throw RulesEvaluationError("map keys are strings, not \(element.typeName)") }
            return map[key] != nil
        default: throw RulesEvaluationError("'in' needs a list, set or map, not \(container.typeName)")
        }
    }

    /// What `compare` answers for NaN, which no comparison holds for.
    private static let unordered = 2

    /// -1, 0, 1 or `unordered`; incompatible types are an error.
    private func compare(_ left: StorageRulesValue, _ right: StorageRulesValue, _ op: BinaryOperator) throws(RulesEvaluationError) -> Int {
        func order<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : a == b ? 0 : 1 }
        switch (left, right) {
        case (.int(let a), .int(let b)): return order(a, b)
        case (.int, .float), (.float, .int), (.float, .float):
            let (a, b) = (try number(left, op.rawValue), try number(right, op.rawValue))
            guard !a.isNaN, !b.isNaN else { return Self.unordered }
            return order(a, b)
        case (.string(let a), .string(let b)): return order(a, b)
        case (.timestamp(let a), .timestamp(let b)): return order(a, b)
        case (.duration(let a), .duration(let b)): return order(a, b)
        case (.bytes(let a), .bytes(let b)): return a.lexicographicallyPrecedes(b) ? -1 : a == b ? 0 : 1
        default: throw RulesEvaluationError("cannot compare \(left.typeName) \(op.rawValue) \(right.typeName)")
        }
    }

    private func arithmetic(_ op: BinaryOperator, _ left: StorageRulesValue, _ right: StorageRulesValue) throws(RulesEvaluationError)
        -> StorageRulesValue
    {
        switch (op, left, right) {
        case (_, .int(let a), .int(let b)): return try integerArithmetic(op, a, b)
        case (_, .int(let a), .float(let b)): return try floatArithmetic(op, Double(a), b)
        case (_, .float(let a), .int(let b)): return try floatArithmetic(op, a, Double(b))
        case (_, .float(let a), .float(let b)): return try floatArithmetic(op, a, b)
        case (.add, .string(let a), .string(let b)): return .string(a + b)
        case (.add, .list(let a), .list(let b)): return .list(a + b)
        case (.add, .bytes(let a), .bytes(let b)): return .bytes(a + b)
        case (.add, .timestamp(let t), .duration(let d)), (.add, .duration(let d), .timestamp(let t)):
            return .timestamp(try t.adding(d.nanoseconds))
        case (.subtract, .timestamp(let t), .duration(let d)):
            let (negated, overflow) = Int64(0).subtractingReportingOverflow(d.nanoseconds)
            guard !overflow else { throw RulesEvaluationError("duration out of range") }
            return .timestamp(try t.adding(negated))
        case (.subtract, .timestamp(let a), .timestamp(let b)):
            return .duration(try a.duration(since: b))
        case (.add, .duration(let a), .duration(let b)), (.subtract, .duration(let a), .duration(let b)):
            let (sum, overflow) =
                op == .add
                ? a.nanoseconds.addingReportingOverflow(b.nanoseconds) : a.nanoseconds.subtractingReportingOverflow(b.nanoseconds)
            guard !overflow else { throw RulesEvaluationError("duration out of range") }
            return .duration(RulesDuration(nanoseconds: sum))
        default:
            throw RulesEvaluationError("cannot apply '\(op.rawValue)' to \(left.typeName) and \(right.typeName)")
        }
    }

    private func integerArithmetic(_ op: BinaryOperator, _ a: Int64, _ b: Int64) throws(RulesEvaluationError) -> StorageRulesValue {
        let result: (partialValue: Int64, overflow: Bool)
        switch op {
        case .add: result = a.addingReportingOverflow(b)
        case .subtract: result = a.subtractingReportingOverflow(b)
        case .multiply: result = a.multipliedReportingOverflow(by: b)
        case .divide, .remainder:
            guard b != 0 else { throw RulesEvaluationError("division by zero") }
            result = op == .divide ? a.dividedReportingOverflow(by: b) : a.remainderReportingOverflow(dividingBy: b)
        default: throw RulesEvaluationError("not arithmetic: \(op.rawValue)")
        }
        guard !result.overflow else { throw RulesEvaluationError("integer overflow in '\(op.rawValue)'") }
        return .int(result.partialValue)
    }

    private func floatArithmetic(_ op: BinaryOperator, _ a: Double, _ b: Double) throws(RulesEvaluationError) -> StorageRulesValue {
        switch op {
        case .add: return .float(a + b)
        case .subtract: return .float(a - b)
        case .multiply: return .float(a * b)
        case .divide: return .float(a / b)
        case .remainder: return .float(a.truncatingRemainder(dividingBy: b))
        default: throw RulesEvaluationError("not arithmetic: \(op.rawValue)")
        }
    }

    func negated(_ value: StorageRulesValue) throws(RulesEvaluationError) -> StorageRulesValue {
        switch value {
        case .int(let number):
            guard number != .min else { throw RulesEvaluationError("integer overflow in '-'") }
            return .int(-number)
        case .float(let number): return .float(-number)
        case .duration(let duration):
            guard duration.nanoseconds != .min else { throw RulesEvaluationError("duration out of range") }
            return .duration(RulesDuration(nanoseconds: -duration.nanoseconds))
        default: throw RulesEvaluationError("cannot negate a \(value.typeName)")
        }
    }

    /// `value.name`: a map's entry (missing → error) or a field of `request`/`resource`.
    func member(_ name: String, of value: StorageRulesValue) throws(RulesEvaluationError) -> StorageRulesValue {
        switch value {
        case .map(let map):
            guard let member = map[name] else { throw RulesEvaluationError("property '\(name)' is undefined on the map") }
            return member
        case .null: throw RulesEvaluationError("null value has no property '\(name)'")
        default: throw RulesEvaluationError("a \(value.typeName) has no property '\(name)'")
        }
    }

    func subscripted(_ value: StorageRulesValue, by index: StorageRulesValue) throws(RulesEvaluationError) -> StorageRulesValue {
        switch (value, index) {
        case (.map(let map), .string(let key)):
            guard let member = map[key] else { throw RulesEvaluationError("key '\(key)' is undefined on the map") }
            return member
        case (.list(let elements), .int(let position)):
            return elements[try checked(position, count: elements.count)]
        case (.path(let segments), .int(let position)):
            return .string(segments[try checked(position, count: segments.count)])
        case (.string(let string), .int(let position)):
            let characters = Array(string)
            return .string(String(characters[try checked(position, count: characters.count)]))
        case (.bytes(let bytes), .int(let position)):
            return .int(Int64(bytes[try checked(position, count: bytes.count)]))
        case (.null, _): throw RulesEvaluationError("cannot index null")
        default: throw RulesEvaluationError("cannot index a \(value.typeName) with a \(index.typeName)")
        }
    }

    private func checked(_ position: Int64, count: Int) throws(RulesEvaluationError) -> Int {
        guard position >= 0, position < count else { throw RulesEvaluationError("index \(position) is out of range (size \(count))") }
        return Int(position)
    }

    func sliced(_ value: StorageRulesValue, from: StorageRulesValue?, to: StorageRulesValue?) throws(RulesEvaluationError)
        -> StorageRulesValue
    {
        func bounds(count: Int) throws(RulesEvaluationError) -> Range<Int> {
            var lower = 0
            var upper = count
            if let from {
                guard case .int(let start) = from else { throw RulesEvaluationError("slice bounds must be ints") }
                lower = Int(clamping: start)
            }
            if let to {
                guard case .int(let end) = to else { throw RulesEvaluationError("slice bounds must be ints") }
                upper = Int(clamping: end)
            }
            guard 0 <= lower, lower <= upper, upper <= count else {
                throw RulesEvaluationError("slice [\(lower):\(upper)] is out of range (size \(count))")
            }
            return lower..<upper
        }
        switch value {
        case .list(let elements): return .list(Array(elements[try bounds(count: elements.count)]))
        case .string(let string):
            let characters = Array(string)
            return .string(String(characters[try bounds(count: characters.count)]))
        case .path(let segments): return .path(Array(segments[try bounds(count: segments.count)]))
        case .bytes(let bytes): return .bytes(Array(bytes[try bounds(count: bytes.count)]))
        default: throw RulesEvaluationError("cannot slice a \(value.typeName)")
        }
    }
}
