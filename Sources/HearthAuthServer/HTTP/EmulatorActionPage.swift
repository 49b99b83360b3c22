import HTTPTypes
import HearthCore
import HearthEdge
import Hummingbird
import NIOCore

/// `GET /emulator/action`: the emulator's out-of-band link handler (auth spec §8). It applies the
/// code of a link and answers JSON under `authEmulator`, or redirects to the link's `continueUrl`.
struct EmulatorActionPage: Sendable {
    let service: AuthService

    func respond(_ query: [String: String], _ call: AuthCall) async throws(AuthError) -> Response {
        guard query["apiKey"] != nil else { return answer(.badRequest, error: "missing apiKey query parameter") }
        guard let code = query["oobCode"] else { return answer(.badRequest, error: "missing oobCode query parameter") }
        let continueUrl = query["continueUrl"]
        switch query["mode"] {
        case "resetPassword":
            let expired = "Your request to reset your password has expired or the link has already been used."
            let known = try await service.directory.read { $0.codes[code]?.kind == .passwordReset }
            guard known else { return answer(.badRequest, error: expired) }
            guard let newPassword = query["newPassword"], newPassword != "NEW_PASSWORD_HERE" else {
                let template = linkWithout(query, "newPassword") + "&newPassword=NEW_PASSWORD_HERE"
                return answer(.badRequest, error: "missing newPassword query parameter", extra: [("urlTemplate", template)])
            }
            let result = try await service.resetPassword(
                AuthRequestBody(fields: ["oobCode": .string(code), "newPassword": .string(newPassword)]), call)
            if let continueUrl { return redirect(to: continueUrl) }
            return answer(.ok, success: "The password has been successfully updated.", extra: [("email", result["email"])])
        case "verifyEmail", "verifyAndChangeEmail", "recoverEmail":
            let user: JSONValue
            do {
                user = try await service.applyActionCode(code, call)
            } catch {
                return answer(.badRequest, error: "Your request to verify your email has expired or the link has already been used.")
            }
            if let continueUrl { return redirect(to: continueUrl) }
            switch query["mode"] {
            case "verifyEmail": return answer(.ok, success: "The email has been successfully verified.", extra: [("email", user["email"])])
            case "verifyAndChangeEmail":
                return answer(.ok, success: "The email has been successfully changed.", extra: [("newEmail", user["email"])])
            default: return answer(.ok, success: "The email has been successfully reset.", extra: [("email", user["email"])])
            }
        case "signIn":
            guard let continueUrl else { return answer(.badRequest, error: "Missing continueUrl query parameter") }
            var target = continueUrl
            let others = query.filter { $0.key != "continueUrl" }.sorted { $0.key < $1.key }
            for (index, parameter) in others.enumerated() {
                target += (index == 0 && !continueUrl.contains("?") ? "?" : "&")
                target += "\(PercentEncoding.encode(parameter.key))=\(PercentEncoding.encode(parameter.value))"
            }
            return redirect(to: target)
        default:
            return answer(.badRequest, error: "Invalid mode")
        }
    }

    private func linkWithout(_ query: [String: String], _ name: String) -> String {
        "/emulator/action?"
            + query.filter { $0.key != name }.sorted { $0.key < $1.key }
            .map { "\(PercentEncoding.encode($0.key))=\(PercentEncoding.encode($0.value))" }
            .joined(separator: "&")
    }

    private func redirect(to location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    private func answer(
        _ status: HTTPResponse.Status, error: String? = nil, success: String? = nil, extra: [(String, JSONValue?)] = []
    ) -> Response {
        var members: [(String, JSONValue?)] = [("error", error.map(JSONValue.string)), ("success", success.map(JSONValue.string))]
        members += extra
        var writer = JSONWriter(pretty: true)
        writer.write(.object([JSONMember(key: "authEmulator", value: .members(members))]))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }

    private func answer(_ status: HTTPResponse.Status, error: String, extra: [(String, String)]) -> Response {
        answer(status, error: error, extra: extra.map { ($0.0, JSONValue.string($0.1)) })
    }
}
