import Foundation
import HearthCore

extension Database {
    /// Encodes `Encodable` values for ``DatabaseReference/setValue(from:encoder:completion:)``.
    public typealias Encoder = JSONEncoder
    /// Decodes snapshots for ``DataSnapshot/data(as:decoder:)``.
    public typealias Decoder = JSONDecoder
}

/// Why a value could not be encoded or a snapshot decoded.
public enum DatabaseCodingError: Error, CustomStringConvertible {
    /// The encoder's output is not data the database can store.
    case invalidData(String)

    public var description: String {
        switch self {
        case .invalidData(let reason): "The value cannot be stored: \(reason)"
        }
    }
}

extension DatabaseReference {
    /// Writes `value` as the `Encodable` encodes it (keys as the encoder names them).
    public func setValue<T: Encodable>(
        from value: T, encoder: Database.Encoder = Database.Encoder(), completion: (((any Error)?) -> Void)? = nil
    ) throws {
        let json = try Self.json(encoding: value, with: encoder)
        write(.success(json), at: path, completion.map { block in { error, _ in block(error) } })
    }

    /// The `async` form: returns once the server accepted the write.
    public func setValue<T: Encodable>(from value: T, encoder: Database.Encoder = Database.Encoder()) async throws {
        let json = try Self.json(encoding: value, with: encoder)
        let _: DatabaseReference = try await withCheckedThrowingContinuation { continuation in
            write(.success(json), at: path) { error, reference in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: reference) }
            }
        }
    }

    /// The encoded value as the JSON a write sends; keys and values are checked when written.
    private static func json<T: Encodable>(encoding value: T, with encoder: Database.Encoder) throws -> JSONValue {
        do {
            return try JSONParser.parse(Array(try encoder.encode(value)))
        } catch let error as JSONParseError {
            throw DatabaseCodingError.invalidData(error.description)
        }
    }
}

extension DataSnapshot {
    /// The snapshot's value decoded as `T`.
    public func data<T: Decodable>(as type: T.Type, decoder: Database.Decoder = Database.Decoder()) throws -> T {
        try Self.decode(type, from: node, decoder: decoder)
    }

    /// Nothing at the location decodes as JSON `null`: `nil` for an optional type, an error
    /// (`DecodingError.valueNotFound`) otherwise.
    static func decode<T: Decodable>(_ type: T.Type, from node: Node, decoder: Database.Decoder) throws -> T {
        let json = node.isNull ? Array("null".utf8) : JSONWriter.render(node, .plain)
        return try decoder.decode(type, from: Data(json))
    }
}

extension MutableData {
    /// The data decoded as `T`.
    public func data<T: Decodable>(as type: T.Type, decoder: Database.Decoder = Database.Decoder()) throws -> T {
        try DataSnapshot.decode(type, from: node, decoder: decoder)
    }
}
