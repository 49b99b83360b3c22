/// Why a password hash could not be computed or a hash description was refused.
public enum PasswordHashError: Error, Equatable, Sendable {
    /// A parameter is missing or outside the range Firebase accepts; the message names it and its range.
    case invalidParameter(String)
    /// The underlying cryptographic primitive refused valid-looking inputs; the message says which one.
    case computationFailed(String)
}

extension PasswordHashError: CustomStringConvertible {
    /// The message alone, as an API error's detail shows it.
    public var description: String {
        switch self {
        case .invalidParameter(let message), .computationFailed(let message): message
        }
    }
}
