import HearthCore

extension StorageRulesValue {
    /// A JSON value (the claims of an ID token, say) as a rules value: numbers without a
    /// fraction are ints, objects are maps.
    public init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(.int(let integer)): self = .int(integer)
        case .number(.double(let double)): self = .float(double)
        case .string(let value): self = .string(value)
        case .array(let values): self = .list(values.map(StorageRulesValue.init))
        case .object(let members):
            self = .map(Dictionary(members.map { ($0.key, StorageRulesValue($0.value)) }, uniquingKeysWith: { $1 }))
        }
    }
}
