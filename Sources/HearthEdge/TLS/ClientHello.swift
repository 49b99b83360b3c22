import NIOCore

/// What a TLS ClientHello asks for that decides which certificate answers it: the server name
/// (SNI) and the application protocols offered (ALPN), read from the first record of a
/// connection before the TLS library sees it.
package struct ClientHello: Equatable, Sendable {
    package var serverName: String?
    package var applicationProtocols: [String]

    package init(serverName: String?, applicationProtocols: [String]) {
        self.serverName = serverName
        self.applicationProtocols = applicationProtocols
    }

    /// What the bytes a connection began with hold.
    package enum Reading: Equatable {
        /// The first record is not complete yet.
        case incomplete
        /// A ClientHello in one record.
        case hello(ClientHello)
        /// Anything else (plain HTTP, a ClientHello spread over records, garbage): the TLS
        /// library decides.
        case other
    }

    /// The largest record a ClientHello fits in (2^14 bytes of plaintext).
    private static let maximumRecordLength = 1 << 14

    /// Reads the ClientHello at the start of `bytes`, leaving them as they are.
    package static func read(_ bytes: ByteBuffer) -> Reading {
        let start = bytes.readerIndex
        guard let type = bytes.getInteger(at: start, as: UInt8.self) else { return .incomplete }
        guard type == 22 else { return .other }
        guard let length = bytes.getInteger(at: start + 3, as: UInt16.self) else { return .incomplete }
        guard Int(length) <= maximumRecordLength else { return .other }
        guard var body = bytes.getSlice(at: start + 5, length: Int(length)) else { return .incomplete }
        return parse(&body).map(Reading.hello) ?? .other
    }

    /// The ClientHello handshake message that is the whole of `body`, if it is one.
    private static func parse(_ body: inout ByteBuffer) -> ClientHello? {
        guard body.readInteger(as: UInt8.self) == 1, let high: UInt8 = body.readInteger(), let low: UInt16 = body.readInteger(),
            Int(high) << 16 | Int(low) == body.readableBytes,
            body.readSlice(length: 2 + 32) != nil,  // legacy version, random
            skipVector(&body, lengthBytes: 1), skipVector(&body, lengthBytes: 2), skipVector(&body, lengthBytes: 1)
        else { return nil }
        var hello = ClientHello(serverName: nil, applicationProtocols: [])
        guard body.readableBytes > 0 else { return hello }
        guard let extensionsLength: UInt16 = body.readInteger(), var extensions = body.readSlice(length: Int(extensionsLength)) else {
            return nil
        }
        while extensions.readableBytes > 0 {
            guard let type: UInt16 = extensions.readInteger(), let length: UInt16 = extensions.readInteger(),
                var data = extensions.readSlice(length: Int(length))
            else { return nil }
            switch type {
            case 0: hello.serverName = serverName(in: &data)
            case 16: hello.applicationProtocols = applicationProtocols(in: &data) ?? []
            default: break
            }
        }
        return hello
    }

    /// The host name of a `server_name` extension.
    private static func serverName(in data: inout ByteBuffer) -> String? {
        guard let _: UInt16 = data.readInteger(), data.readInteger(as: UInt8.self) == 0, let length: UInt16 = data.readInteger(),
            let name = data.readString(length: Int(length)), name.utf8.allSatisfy({ $0 > 32 && $0 < 127 })
        else { return nil }
        return name
    }

    /// The protocol names of an `application_layer_protocol_negotiation` extension.
    private static func applicationProtocols(in data: inout ByteBuffer) -> [String]? {
        guard let length: UInt16 = data.readInteger(), var list = data.readSlice(length: Int(length)) else { return nil }
        var names: [String] = []
        while list.readableBytes > 0 {
            guard let nameLength: UInt8 = list.readInteger(), let name = list.readString(length: Int(nameLength)) else { return nil }
            names.append(name)
        }
        return names
    }

    /// Skips a vector whose length is in its first `lengthBytes` bytes.
    private static func skipVector(_ body: inout ByteBuffer, lengthBytes: Int) -> Bool {
        let length: Int? =
            lengthBytes == 1 ? body.readInteger(as: UInt8.self).map(Int.init) : body.readInteger(as: UInt16.self).map(Int.init)
        guard let length else { return false }
        return body.readSlice(length: length) != nil
    }
}
