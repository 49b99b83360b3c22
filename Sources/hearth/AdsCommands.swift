import ArgumentParser
import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOHTTP1

/// Where the `ads:` commands reach a running Hearth's ads server, and as whom.
struct AdsServerOptions: ParsableArguments {
    @Option(help: "The Hearth server.")
    var server = "http://127.0.0.1:9000"

    @Option(help: "The credential sent as 'Authorization: Bearer …' (the development admin credential by default).")
    var token = "owner"

    /// Sends `method` to `/ads/v1/<path>` with `body`; the JSON answered (`nil` for an empty
    /// answer), or the server's error as a failure.
    func call(_ method: HTTPMethod, _ path: String, body: JSONValue? = nil) async throws -> JSONValue? {
        var request = HTTPClientRequest(url: "\(server)/ads/v1/\(path)")
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: JSONWriter.string(body)))
        }
        let response: HTTPClientResponse
        let answer: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .minutes(1))
            answer = try await response.body.collect(upTo: 64 << 20)
        } catch {
            throw CommandFailure("cannot reach \(server): \(error)")
        }
        let json = answer.readableBytes == 0 ? nil : try? JSONParser.parse(Array(answer.readableBytesView))
        guard (200..<300).contains(response.status.code) else {
            let message = json?["error"]?["message"]?.stringValue ?? String(buffer: answer)
            throw CommandFailure("the server answered \(response.status.code): \(message)")
        }
        return json
    }
}

/// The collections of the ads catalog.
enum AdsCollection: String, ExpressibleByArgument, CaseIterable {
    case adUnits, creatives, campaigns

    /// An id as one path segment (an ad unit's holds a `/`).
    static func segment(_ id: String) -> String { URLEscaping.escaped(id) }
}

/// A JSON object given on the command line, or read from a file with `@FILE`.
struct JSONArgument: ExpressibleByArgument {
    let value: JSONValue

    init?(argument: String) {
        let text: String
        if argument.hasPrefix("@") {
            guard let data = FileManager.default.contents(atPath: String(argument.dropFirst())) else { return nil }
            text = String(decoding: data, as: UTF8.self)
        } else {
            text = argument
        }
        guard let value = try? JSONParser.parse(text) else { return nil }
        self.value = value
    }
}

private func printJSON(_ json: JSONValue?) {
    if let json { print(JSONWriter.string(json, pretty: true)) }
}

/// `hearth ads:list KIND`: the ad units, creatives or campaigns.
struct AdsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ads:list", abstract: "List the ad units, creatives or campaigns.")

    @Argument(help: "adUnits, creatives or campaigns.") var collection: AdsCollection
    @OptionGroup var server: AdsServerOptions

    func run() async throws {
        printJSON(try await server.call(.GET, "admin/\(collection.rawValue)"))
    }
}

/// `hearth ads:create KIND JSON`: makes an ad unit, creative or campaign and prints it.
struct AdsCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ads:create", abstract: "Create an ad unit, creative or campaign, given as JSON (or @FILE); prints it with its id.")

    @Argument(help: "adUnits, creatives or campaigns.") var collection: AdsCollection
    @Argument(help: "The object, as the admin API takes it.") var json: JSONArgument
    @OptionGroup var server: AdsServerOptions

    func run() async throws {
        printJSON(try await server.call(.POST, "admin/\(collection.rawValue)", body: json.value))
    }
}

/// `hearth ads:update KIND ID JSON`: changes the fields given.
struct AdsUpdate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ads:update", abstract: "Change the fields given (JSON or @FILE) of an ad unit, creative or campaign.")

    @Argument(help: "adUnits, creatives or campaigns.") var collection: AdsCollection
    @Argument(help: "Its id.") var id: String
    @Argument(help: "The fields to change.") var json: JSONArgument
    @OptionGroup var server: AdsServerOptions

    func run() async throws {
        printJSON(try await server.call(.PATCH, "admin/\(collection.rawValue)/\(AdsCollection.segment(id))", body: json.value))
    }
}

/// `hearth ads:delete KIND ID`.
struct AdsDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ads:delete", abstract: "Delete an ad unit, creative or campaign.")

    @Argument(help: "adUnits, creatives or campaigns.") var collection: AdsCollection
    @Argument(help: "Its id.") var id: String
    @OptionGroup var server: AdsServerOptions

    func run() async throws {
        _ = try await server.call(.DELETE, "admin/\(collection.rawValue)/\(AdsCollection.segment(id))")
        print("deleted \(id)")
    }
}

/// `hearth ads:report`: the counts, as a table.
struct AdsReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ads:report", abstract: "Print requests, fills, impressions, viewable impressions, clicks and invalid events.")

    @Option(help: "From (ISO 8601; 24 hours ago by default).") var from: String?
    @Option(help: "To (ISO 8601; now by default).") var to: String?
    @Option(help: "hour or day.") var by = "hour"
    @Option(help: "campaign, creative or unit.") var group = "campaign"
    @OptionGroup var server: AdsServerOptions

    func run() async throws {
        var query = ["by=\(by)", "group=\(group)"]
        if let from { query.append("from=\(AdsCollection.segment(from))") }
        if let to { query.append("to=\(AdsCollection.segment(to))") }
        let answer = try await server.call(.GET, "admin/reports?" + query.joined(separator: "&"))
        let columns = ["requests", "fills", "impressions", "viewable", "clicks", "invalid"]
        print((["hour", group] + columns).joined(separator: "\t"))
        guard case .array(let rows)? = answer?["rows"] else { return }
        for row in rows {
            let hour = row["hour"].map { JSONWriter.string($0) } ?? ""
            let time = Int(hour).map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double($0) * 3600)) } ?? hour
            let key = row["key"]?.stringValue.flatMap { $0.isEmpty ? "(no fill)" : $0 } ?? ""
            print(([time, key] + columns.map { row[$0].map { JSONWriter.string($0) } ?? "0" }).joined(separator: "\t"))
        }
    }
}

/// `hearth ads:decide`: asks which ad fills a slot, or with `--explain` why each campaign would
/// or would not.
struct AdsDecide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ads:decide", abstract: "Ask which ad fills a slot; with --explain, why each campaign was or was not chosen.")

    @Option(help: "The ad unit id.") var unit: String
    @Option(help: "The slot's size, WxH (320x50).") var size: String?
    @Option(help: "An adaptive slot's width.") var adaptive: Int?
    @Option(help: "An adaptive slot's tallest height.") var maxHeight: Int?
    @Option var platform: String?
    @Option var osVersion: String?
    @Option var appVersion: String?
    @Option var locale: String?
    @Option(help: "A keyword (repeat for more).") var keyword: [String] = []
    @Option(help: "The viewer's key, for frequency caps.") var viewer: String?
    @Flag(help: "Show why each campaign of the unit was or was not chosen.") var explain = false
    @OptionGroup var server: AdsServerOptions

    func validate() throws {
        guard (size == nil) != (adaptive == nil) else { throw ValidationError("give --size WxH or --adaptive WIDTH") }
        if let size, Self.dimensions(size) == nil { throw ValidationError("--size: expected WxH, such as 320x50") }
    }

    static func dimensions(_ text: String) -> (w: Int, h: Int)? {
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    func run() async throws {
        var members = [JSONMember(key: "adUnitID", value: .string(unit))]
        if let size, let (w, h) = Self.dimensions(size) {
            members.append(JSONMember(key: "size", value: .object([number("w", w), number("h", h)])))
        }
        if let adaptive {
            members.append(
                JSONMember(
                    key: "adaptive", value: .object([number("width", adaptive)] + (maxHeight.map { [number("maxHeight", $0)] } ?? []))))
        }
        for (key, value) in [
            ("platform", platform), ("osVersion", osVersion), ("appVersion", appVersion), ("locale", locale), ("viewerKey", viewer),
        ] {
            if let value { members.append(JSONMember(key: key, value: .string(value))) }
        }
        if !keyword.isEmpty { members.append(JSONMember(key: "keywords", value: .array(keyword.map { .string($0) }))) }
        guard explain else {
            let answer = try await server.call(.POST, "decide", body: .object(members))
            if answer == nil { print("no fill") } else { printJSON(answer) }
            return
        }
        guard case .array(let lines)? = try await server.call(.POST, "admin/explain", body: .object(members))?["campaigns"] else { return }
        if lines.isEmpty { print("no campaign names this unit") }
        for line in lines {
            let id = line["campaignID"]?.stringValue ?? ""
            let name = line["name"]?.stringValue ?? ""
            let priority = line["priority"]?.stringValue ?? ""
            let verdict =
                line["eligible"] == .bool(true)
                ? "eligible, would show \(line["creativeID"]?.stringValue ?? "")" : "out: \(line["reason"]?.stringValue ?? "")"
            print("\(id)\t\(name)\t\(priority)\t\(verdict)")
        }
    }

    private func number(_ key: String, _ value: Int) -> JSONMember {
        JSONMember(key: key, value: .number(.int(Int64(value))))
    }
}
