import HearthCore

/// The REST parameters that shape a response or a write, besides the query (protocol §11.3).
struct RESTOptions {
    enum Print {
        case compact, pretty, silent
    }

    var print: Print = .compact
    var export = false
    var shallow = false
    var callback: String?
    var download: String?
    var query: QueryParams?

    init(_ parameters: [String: String]) throws(RESTError) {
        switch parameters["print"] {
        case nil: break
        case "pretty": print = .pretty
        case "silent": print = .silent
        case let other?: throw .badRequest("print must be pretty or silent, not \(other)")
        }
        switch parameters["format"] {
        case nil: break
        case "export": export = true
        case let other?: throw .badRequest("format must be export, not \(other)")
        }
        switch parameters["shallow"] {
        case nil, "false": break
        case "true": shallow = true
        case let other?: throw .badRequest("shallow must be true or false, not \(other)")
        }
        if let callback = parameters["callback"] {
            guard Self.isIdentifier(callback) else { throw .badRequest("callback must be a JavaScript identifier") }
            self.callback = callback
        }
        download = parameters["download"]
        if let timeout = parameters["timeout"] { try Self.checkTimeout(timeout) }
        if let limit = parameters["writeSizeLimit"], !["tiny", "small", "medium", "large", "unlimited"].contains(limit) {
            throw .badRequest("writeSizeLimit must be one of tiny, small, medium, large or unlimited")
        }
        query = try RESTQueryParser.parse(parameters, shallow: shallow)
    }

    /// How data is rendered for this request.
    var rendering: JSONRendering {
        JSONRendering(export: export, arrays: !export, pretty: print == .pretty)
    }

    /// `timeout` is `<n>ms`, `<n>s` or `<n>min`, at most 15 minutes. Hearth answers every read
    /// at once, so a valid timeout never fires.
    private static func checkTimeout(_ text: String) throws(RESTError) {
        let units: [(suffix: String, milliseconds: Int)] = [("ms", 1), ("min", 60_000), ("s", 1000)]
        for unit in units where text.hasSuffix(unit.suffix) {
            if let value = Int(text.dropLast(unit.suffix.count)), value > 0, value * unit.milliseconds <= 900_000 {
                return
            }
            break
        }
        throw .badRequest("timeout must be a positive duration in ms, s or min of at most 15min")
    }

    private static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "$" || scalar == "."
        }
    }
}
