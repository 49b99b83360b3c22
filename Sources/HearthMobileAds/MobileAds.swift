import Foundation
import HearthApp

/// The ads SDK as a whole, under the Google Mobile Ads SDK's name: ``shared`` is started once
/// and says which Hearth server banners ask for ads.
///
/// The server is, in order: the one given to ``useEmulator(withHost:port:)``; the one in the
/// environment variable `HEARTH_ADS_EMULATOR_HOST` (`host:port`); or the origin of the default
/// `FirebaseApp`'s `databaseURL`, the Hearth that serves the app's database.
@MainActor
public final class MobileAds {
    /// The one instance.
    public static let shared = MobileAds()

    /// The application id given to ``configure(withApplicationID:)``; Hearth does not need it.
    public private(set) var applicationIdentifier: String?
    /// The status ``start(completionHandler:)`` reports, once started.
    public private(set) var initializationStatus = InitializationStatus(started: false)
    private var emulator: String?
    /// How long a request for an ad may take before it fails with ``GADErrorCode/timeout``.
    var requestTimeout: Duration = .seconds(30)

    private init() {}

    /// Starts the SDK and calls `completionHandler` once it is ready. Banners load whether or not
    /// it was called; it is here so that code written for Google's SDK runs unchanged.
    public func start(completionHandler: (@MainActor (InitializationStatus) -> Void)? = nil) {
        initializationStatus = InitializationStatus(started: true)
        guard let completionHandler else { return }
        let status = initializationStatus
        Task { @MainActor in completionHandler(status) }
    }

    /// ``start(completionHandler:)`` for `async` code.
    @discardableResult
    public func start() async -> InitializationStatus {
        initializationStatus = InitializationStatus(started: true)
        return initializationStatus
    }

    /// Sends every ad request and event to the Hearth server at `host:port` (plain HTTP).
    public func useEmulator(withHost host: String, port: Int) {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        emulator = "\(bracketed):\(port)"
    }

    /// The old SDK's start: remembers the application id and starts.
    public static func configure(withApplicationID applicationID: String) {
        shared.applicationIdentifier = applicationID
        shared.start(completionHandler: nil)
    }

    /// The old SDK's accessor of ``shared``.
    public static func sharedInstance() -> MobileAds { shared }

    /// The SDK's version, as `GADRequest.sdkVersion()` tells it.
    public nonisolated static let sdkVersion = "hearth-ads-1"

    /// The server's origin (`http://host:port`), or `nil` when nothing says where it is.
    var serverOrigin: String? {
        if let emulator { return "http://\(emulator)" }
        if let host = ProcessInfo.processInfo.environment["HEARTH_ADS_EMULATOR_HOST"], !host.isEmpty {
            return host.contains("://") ? host : "http://\(host)"
        }
        guard let url = FirebaseApp.app()?.options.databaseURL, let components = URLComponents(string: url),
            let scheme = components.scheme, let host = components.host
        else { return nil }
        return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}

/// The old SDK's name for ``MobileAds``.
public typealias GADMobileAds = MobileAds

/// What ``MobileAds/start(completionHandler:)`` reports: Hearth has one ad source, itself.
public struct InitializationStatus: Sendable {
    /// Each ad source's state, by name: `Hearth`, ready once started.
    public let adapterStatusesByClassName: [String: AdapterStatus]

    init(started: Bool) {
        adapterStatusesByClassName = ["Hearth": AdapterStatus(state: started ? .ready : .notReady, description: "")]
    }
}

/// One ad source's state after start.
public struct AdapterStatus: Sendable {
    /// Whether the source is ready.
    public let state: AdapterInitializationState
    /// Why it is not, when it is not.
    public let description: String
}

/// Whether an ad source is ready to serve.
public enum AdapterInitializationState: Int, Sendable {
    /// Not ready: the SDK was not started.
    case notReady = 0
    /// Ready.
    case ready = 1
}
