import Foundation

/// The domain of every error a banner reports (`com.google.admob`, as Google's SDK says).
public let GADErrorDomain = "com.google.admob"

/// Why a banner did not get an ad: the codes Google's SDK uses, in ``GADErrorDomain``.
public enum GADErrorCode: Int, Sendable {
    /// The request was invalid: no ad unit id, an invalid size, an ad unit the server does not
    /// know, or no server configured.
    case invalidRequest = 0
    /// The server had no ad for the slot.
    case noFill = 1
    /// The server could not be reached.
    case networkError = 2
    /// The server failed to answer (a 5xx status, or an answer not meant for a request).
    case serverError = 3
    /// The server did not answer in time.
    case timeout = 5
    /// The server's answer could not be read.
    case receivedInvalidResponse = 13
}

/// The error banners report, under the Google Mobile Ads SDK's name: an `NSError` in
/// ``GADErrorDomain`` whose code is one of ``Code``.
public final class RequestError: NSError, @unchecked Sendable {
    /// The codes of ``GADErrorDomain``.
    public typealias Code = GADErrorCode

    init(_ code: Code, _ message: String) {
        super.init(domain: GADErrorDomain, code: code.rawValue, userInfo: [NSLocalizedDescriptionKey: message])
    }

    required init?(coder: NSCoder) {
        super.init(coder: coder)
    }
}

/// The old name of ``RequestError``.
public typealias GADRequestError = RequestError

extension RequestError {
    /// An error of `code` with a message saying what went wrong.
    static func ads(_ code: Code, _ message: String) -> RequestError {
        RequestError(code, message)
    }
}
