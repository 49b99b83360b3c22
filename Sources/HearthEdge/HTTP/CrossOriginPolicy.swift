import HTTPTypes
import Hummingbird

/// How a product answers browsers calling it from another origin (the SDKs run on the app's own
/// origin, never Hearth's): which origin its responses allow, and its answer to a preflight. One
/// policy per product, one implementation for all.
package struct CrossOriginPolicy: Sendable {
    /// Which origin responses allow.
    package enum AllowedOrigin: Sendable {
        /// `*`, as the Realtime Database's REST API answers.
        case any
        /// The caller's `Origin` reflected (with `Vary: Origin`), as the Auth and Storage
        /// emulators answer.
        case caller
    }

    package let allowedOrigin: AllowedOrigin
    /// The methods a preflight allows.
    package let methods: String
    /// The request headers a preflight allows when the browser names none.
    package let defaultHeaders: String
    /// The status of a preflight's answer.
    package let preflightStatus: HTTPResponse.Status

    package init(allowedOrigin: AllowedOrigin, methods: String, defaultHeaders: String, preflightStatus: HTTPResponse.Status) {
        self.allowedOrigin = allowedOrigin
        self.methods = methods
        self.defaultHeaders = defaultHeaders
        self.preflightStatus = preflightStatus
    }

    /// Adds the allowed origin to `headers` of a response to `request`.
    package func allowOrigin(_ headers: inout HTTPFields, for request: Request) {
        switch allowedOrigin {
        case .any:
            headers[.accessControlAllowOrigin] = "*"
        case .caller:
            headers[.accessControlAllowOrigin] = request.headers[.origin] ?? "*"
            if request.headers[.origin] != nil { headers[.vary] = "Origin" }
        }
    }

    /// The answer to a browser's preflight: the product's methods, the headers the browser asks
    /// for (or the product's usual ones), cached for an hour, and Private Network Access allowed
    /// when asked (a page on a public origin calling a Hearth on this machine or network).
    package func preflight(_ request: Request, headers base: HTTPFields = [:]) -> Response {
        var headers = base
        allowOrigin(&headers, for: request)
        headers[.accessControlAllowMethods] = methods
        headers[.accessControlAllowHeaders] = request.headers[.accessControlRequestHeaders] ?? defaultHeaders
        headers[.accessControlMaxAge] = "3600"
        if request.headers[.accessControlRequestPrivateNetwork] == "true" { headers[.accessControlAllowPrivateNetwork] = "true" }
        return Response(status: preflightStatus, headers: headers)
    }
}

extension HTTPField.Name {
    static let accessControlRequestPrivateNetwork = HTTPField.Name("Access-Control-Request-Private-Network")!
    static let accessControlAllowPrivateNetwork = HTTPField.Name("Access-Control-Allow-Private-Network")!
}
