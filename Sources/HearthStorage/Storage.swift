import Foundation
@_spi(HearthSDK) import HearthApp

/// Cloud Storage for one bucket of an app, under the Firebase Apple SDK's name: found with
/// ``storage()``, ``storage(url:)`` or ``storage(app:)``; ``reference()`` points into it.
public final class Storage: @unchecked Sendable {
    /// The app whose credentials requests carry.
    public let app: FirebaseApp
    /// The bucket's name (`<project>.appspot.com`, say).
    public let bucket: String
    private let lock = NSLock()
    private var emulator: String?
    private var uploadRetryTime: TimeInterval = 600
    private var downloadRetryTime: TimeInterval = 600
    private var operationRetryTime: TimeInterval = 120
    private var uploadChunkSize: Int64 = 4 << 20
    private var queue = defaultCallbackQueue(label: "hearth.storage.callbacks")

    private static let instances = NSLock()
    nonisolated(unsafe) private static var byKey: [String: Storage] = [:]

    private init(app: FirebaseApp, bucket: String) {
        self.app = app
        self.bucket = bucket
    }

    /// The default app's default bucket.
    public static func storage() -> Storage {
        storage(app: defaultApp())
    }

    /// The default app's bucket at `url` (`gs://bucket`).
    public static func storage(url: String) -> Storage {
        storage(app: defaultApp(), url: url)
    }

    /// `app`'s default bucket (its options' `storageBucket`).
    public static func storage(app: FirebaseApp) -> Storage {
        guard let bucket = app.options.storageBucket, !bucket.isEmpty else {
            fatalError("No default Storage bucket found. Did you configure Firebase Storage properly?")
        }
        return storage(app: app, url: "gs://\(bucket)")
    }

    /// `app`'s bucket at `url` (`gs://bucket`; a bare bucket name is read as one).
    public static func storage(app: FirebaseApp, url: String) -> Storage {
        var bucket = url
        if bucket.hasPrefix("gs://") { bucket.removeFirst(5) }
        while bucket.hasSuffix("/") { bucket.removeLast() }
        precondition(!bucket.isEmpty && !bucket.contains("/"), "Storage bucket URLs must be gs://bucket, not \(url)")
        let key = "\(app.name)/\(bucket)"
        return instances.withLock {
            if let existing = byKey[key], existing.app === app { return existing }
            let made = Storage(app: app, bucket: bucket)
            byKey[key] = made
            return made
        }
    }

    private static func defaultApp() -> FirebaseApp {
        guard let app = FirebaseApp.app() else {
            fatalError("The default FirebaseApp instance must be configured before the default Storage instance can be initialized.")
        }
        return app
    }

    /// Sends every request to the Storage emulator, or a Hearth server, at `host:port`.
    public func useEmulator(withHost host: String, port: Int) {
        lock.withLock { emulator = "\(host):\(port)" }
    }

    /// How long an upload retries after network failures before it fails (seconds).
    public var maxUploadRetryTime: TimeInterval {
        get { lock.withLock { uploadRetryTime } }
        set { lock.withLock { uploadRetryTime = newValue } }
    }

    /// How long a download retries after network failures before it fails (seconds).
    public var maxDownloadRetryTime: TimeInterval {
        get { lock.withLock { downloadRetryTime } }
        set { lock.withLock { downloadRetryTime = newValue } }
    }

    /// How long other operations retry (seconds).
    public var maxOperationRetryTime: TimeInterval {
        get { lock.withLock { operationRetryTime } }
        set { lock.withLock { operationRetryTime = newValue } }
    }

    /// The size of each chunk of a resumable upload, a multiple of 256 KiB (default 4 MiB).
    public var uploadChunkSizeBytes: Int64 {
        get { lock.withLock { uploadChunkSize } }
        set { lock.withLock { uploadChunkSize = max(262_144, newValue / 262_144 * 262_144) } }
    }

    /// The queue completion handlers and task observers run on: the main queue on Apple
    /// platforms, a serial queue of the SDK's own on Linux.
    public var callbackQueue: DispatchQueue {
        get { lock.withLock { queue } }
        set { lock.withLock { queue = newValue } }
    }

    /// A reference to the bucket's root.
    public func reference() -> StorageReference {
        StorageReference(storage: self, path: "")
    }

    /// A reference to `path` ("images/cat.png").
    public func reference(withPath path: String) -> StorageReference {
        reference().child(path)
    }

    /// A reference to a `gs://bucket/path` or `http(s)://…/v0/b/bucket/o/path` URL of this bucket.
    public func reference(forURL url: String) -> StorageReference {
        if url.hasPrefix("gs://") {
            let rest = url.dropFirst(5)
            let bucketName = rest.prefix { $0 != "/" }
            precondition(
                bucketName == bucket, "Provided bucket: \(bucketName) does not match the Storage bucket of the current instance: \(bucket)")
            return reference(withPath: String(rest.dropFirst(bucketName.count)))
        }
        guard let components = URLComponents(string: url), let range = components.percentEncodedPath.range(of: "/o/") else {
            preconditionFailure("Unsupported Storage URL: \(url)")
        }
        let encoded = components.percentEncodedPath[range.upperBound...]
        return reference(withPath: String(encoded).removingPercentEncoding ?? String(encoded))
    }

    /// Where requests go: the emulator's address, or Firebase's.
    var baseURL: String {
        lock.withLock { emulator.map { "http://\($0)" } ?? "https://firebasestorage.googleapis.com" }
    }
}
