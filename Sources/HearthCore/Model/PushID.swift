/// Generates Firebase push IDs: 20 characters that sort chronologically.
///
/// The first 8 characters encode the millisecond timestamp in base 64; the other 12 are random.
/// IDs generated in the same millisecond reuse the previous random part plus one, so the IDs of
/// one generator are strictly increasing.
///
/// Not thread-safe: give each serialised writer its own generator.
public struct PushIDGenerator: Sendable {
    /// The 64 characters, in ascending ASCII order.
    public static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".utf8)

    private var lastTimestamp: Int64 = -1
    private var lastRandom: [UInt8] = Array(repeating: 0, count: 12)

    public init() {}

    /// The next ID for the time `timestamp` (milliseconds since 1970).
    public mutating func next(timestamp: Int64) -> String {
        if timestamp == lastTimestamp {
            var index = 11
            while index >= 0 && lastRandom[index] == 63 {
                lastRandom[index] = 0
                index -= 1
            }
            if index >= 0 { lastRandom[index] += 1 }
        } else {
            lastTimestamp = timestamp
            var generator = SystemRandomNumberGenerator()
            for index in 0..<12 { lastRandom[index] = UInt8.random(in: 0..<64, using: &generator) }
        }
        var characters: [UInt8] = Self.timestampPrefix(timestamp)
        characters.append(contentsOf: lastRandom.map { Self.alphabet[Int($0)] })
        return String(decoding: characters, as: UTF8.self)
    }

    /// The 8-character prefix that encodes `timestamp`.
    public static func timestampPrefix(_ timestamp: Int64) -> [UInt8] {
        var remaining = timestamp
        var characters = [UInt8](repeating: 0, count: 8)
        for index in stride(from: 7, through: 0, by: -1) {
            characters[index] = alphabet[Int(remaining % 64)]
            remaining /= 64
        }
        return characters
    }
}
