/// Why data sent for a write was refused. Each case's ``message`` is the text Firebase answers with.
public enum DataError: Error, Sendable, Equatable {
    /// The body is not JSON.
    case unparseable
    /// An object key is empty, holds a forbidden character or is too long.
    case invalidKey(String, SourcePosition)
    /// Path and data together are deeper than 32 levels.
    case tooDeep
    /// A `.priority` that is neither a string, a number nor null.
    case invalidPriority
    /// A `.value` beside children, or a `.value` that is not a leaf.
    case invalidValueWrapper
    /// A `{".sv": …}` placeholder that names no known server value.
    case invalidServerValue
    /// A string longer than 10 MB.
    case stringTooLong
    /// The write is larger than a single request may carry.
    case tooBig

    /// Firebase's error text for this problem.
    public var message: String {
        switch self {
        case .unparseable:
            "Invalid data; couldn't parse JSON object, array, or value."
        case .invalidKey(_, let position):
            "Invalid data; couldn't parse key beginning at \(position). Key value can't be empty or contain $ # [ ] / or ."
        case .tooDeep:
            "Invalid data; path and data are nested more than 32 levels deep."
        case .invalidPriority:
            "Invalid data; .priority must be a string, a number or null."
        case .invalidValueWrapper:
            "Invalid data; .value may only stand beside .priority and must hold a string, number or boolean."
        case .invalidServerValue:
            "Invalid data; unrecognised server value (.sv)."
        case .stringTooLong:
            "Invalid data; a string value is longer than 10485760 bytes."
        case .tooBig:
            "Data to write exceeds the maximum size that can be modified with a single request."
        }
    }
}
