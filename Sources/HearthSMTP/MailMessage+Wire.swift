extension MailMessage {
    /// The message as the text an SMTP client sends after `DATA` (RFC 5322 with MIME): header
    /// fields, then the quoted-printable text body, or a `multipart/alternative` of the text and
    /// the HTML body. Lines end in CRLF; `uniqueID` (letters and digits) makes the `Message-ID`
    /// and the multipart boundary, `date` is in seconds since 1970.
    func wireText(date: Int64, uniqueID: String) -> String {
        var fields = [
            "Date: \(MailDate.format(date))", "From: \(from)", "To: \(to)",
            "Subject: \(MIMEEncoding.headerText(subject, fieldName: "Subject"))",
            "Message-ID: <\(uniqueID)@\(from.split(separator: "@").last.map(String.init) ?? "localhost")>", "MIME-Version: 1.0",
        ]
        let body: String
        if let htmlBody {
            // "=_" never occurs in quoted-printable text, so the boundary cannot clash with a part.
            let boundary = "=_\(uniqueID)"
            fields.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            body = [
                "--\(boundary)", Self.part(textBody, type: "text/plain"), "--\(boundary)", Self.part(htmlBody, type: "text/html"),
                "--\(boundary)--",
            ].joined(separator: "\r\n")
        } else {
            fields += ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: quoted-printable"]
            body = MIMEEncoding.quotedPrintable(textBody)
        }
        return fields.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n"
    }

    private static func part(_ text: String, type: String) -> String {
        "Content-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" + MIMEEncoding.quotedPrintable(text)
    }

    /// Why `address` cannot be used in an envelope or header, or nil when it can: it must be
    /// `local@domain`, without spaces, control characters or angle brackets.
    static func problem(withAddress address: String) -> String? {
        guard let at = address.lastIndex(of: "@"), at != address.startIndex, address.index(after: at) != address.endIndex else {
            return "\"\(address)\" is not an email address"
        }
        let forbidden = address.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || "<>,;\"".unicodeScalars.contains($0) }
        return forbidden ? "the address \"\(address)\" contains spaces, control characters or one of <>,;\"" : nil
    }
}
