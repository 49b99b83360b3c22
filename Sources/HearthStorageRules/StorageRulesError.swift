/// Why a storage rules file cannot be loaded: the first problem, with its line and column
/// (both from 1).
public struct StorageRulesError: Error, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String { "\(line):\(column): \(message)" }
}

/// Why an expression has no value (spec storage-api §13): the condition holding it does not
/// grant, while `&&` and `||` may still absorb it.
struct RulesEvaluationError: Error, Sendable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
