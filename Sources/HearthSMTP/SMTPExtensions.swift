/// The service extensions a server lists in its `EHLO` reply (RFC 5321 §4.1.1.1): one keyword per
/// line after the first, with parameters.
struct SMTPExtensions: Sendable {
    /// Upper-cased keyword → its parameters.
    private var parameters: [String: [String]] = [:]

    /// The extensions of `ehloReply`; none for a server that only knows `HELO` (nil).
    init(ehloReply: SMTPReply?) {
        for line in ehloReply?.lines.dropFirst() ?? [] {
            let words = line.split(separator: " ").map(String.init)
            guard let keyword = words.first?.uppercased() else { continue }
            // Some servers still announce "AUTH=PLAIN LOGIN", from a draft of RFC 2554.
            if keyword.hasPrefix("AUTH=") {
                parameters["AUTH", default: []] += [String(keyword.dropFirst(5))] + words.dropFirst()
            } else {
                parameters[keyword, default: []] += words.dropFirst()
            }
        }
    }

    func contains(_ keyword: String) -> Bool {
        parameters[keyword] != nil
    }

    /// The SASL mechanisms of the `AUTH` extension, upper-cased.
    var authenticationMechanisms: Set<String> { Set(parameters["AUTH", default: []].map { $0.uppercased() }) }
}
