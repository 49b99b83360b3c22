/// A token of a storage rules file.
enum RulesToken: Equatable, Sendable {
    case identifier(String)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    /// Punctuation and operators: `( ) [ ] { } , ; : . ? ! = + - * / % < <= > >= == != && ||`.
    case symbol(String)
    case end

    /// How error messages name the token.
    var spelling: String {
        switch self {
        case .identifier(let name): "'\(name)'"
        case .int(let value): "\(value)"
        case .float(let value): "\(value)"
        case .string: "a string"
        case .bytes: "bytes"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the file"
        }
    }
}
