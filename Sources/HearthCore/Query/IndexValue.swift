/// The value a query orders children by, in Firebase's total order:
/// null < false < true < numbers < strings < objects (all objects equal).
public enum IndexValue: Sendable, Hashable, Comparable {
    case null
    case bool(Bool)
    case number(Number)
    case string(String)
    case object

    /// The index value of a whole node (`orderByValue`, `orderByChild`).
    public init(_ node: Node) {
        switch node {
        case .null: self = .null
        case .leaf(let value, _): self.init(value)
        case .object: self = .object
        }
    }

    /// The bound a query names with a JSON primitive; `nil` for arrays and objects, which no
    /// query may name.
    public init?(bound json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let bool): self = .bool(bool)
        case .number(let number): self = .number(number)
        case .string(let string): self = .string(string)
        case .array, .object: return nil
        }
    }

    public init(_ value: LeafValue) {
        switch value {
        case .bool(let bool): self = .bool(bool)
        case .number(let number): self = .number(number)
        case .string(let string): self = .string(string)
        }
    }

    /// The index value of a priority (`orderByPriority`); no priority is null.
    public init(_ priority: Priority?) {
        switch priority {
        case nil: self = .null
        case .number(let number)?: self = .number(number)
        case .string(let string)?: self = .string(string)
        }
    }

    private var rank: Int {
        switch self {
        case .null: 0
        case .bool(false): 1
        case .bool(true): 2
        case .number: 3
        case .string: 4
        case .object: 5
        }
    }

    public static func < (lhs: IndexValue, rhs: IndexValue) -> Bool {
        switch (lhs, rhs) {
        case (.number(let left), .number(let right)): left < right
        case (.string(let left), .string(let right)): UTF16Order.precedes(left, right)
        default: lhs.rank < rhs.rank
        }
    }

    public static func == (lhs: IndexValue, rhs: IndexValue) -> Bool {
        switch (lhs, rhs) {
        case (.number(let left), .number(let right)): left == right
        case (.string(let left), .string(let right)): left.isIdentical(to: right)
        default: lhs.rank == rhs.rank
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .number(let number): hasher.combine(number)
        case .string(let string): hasher.combine(string)
        default: hasher.combine(rank)
        }
    }
}
