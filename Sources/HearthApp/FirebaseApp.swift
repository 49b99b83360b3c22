import Foundation

/// A configured Firebase app, under the Firebase Apple SDK's name: the options every SDK module
/// (database, auth, storage) of one app reads. The default app is named `__FIRAPP_DEFAULT`.
public final class FirebaseApp: Sendable {
    /// The name of the app `configure()` and `configure(options:)` make.
    public static let defaultAppName = "__FIRAPP_DEFAULT"

    private static let apps = LockedValue<[String: FirebaseApp]>([:])

    /// The app's name.
    public let name: String
    private let values: FirebaseOptions.Values
    private let dataCollection = LockedValue(true)
    let authProvider = LockedValue(AuthProviderSlot())

    private init(name: String, values: FirebaseOptions.Values) {
        self.name = name
        self.values = values
    }

    /// A copy of the options the app was configured with.
    public var options: FirebaseOptions { FirebaseOptions(values: values) }

    /// Whether the SDKs may collect usage data; Hearth's SDKs collect none, and keep the setting
    /// only for source compatibility.
    public var isDataCollectionDefaultEnabled: Bool {
        get { dataCollection.withLock { $0 } }
        set { dataCollection.withLock { $0 = newValue } }
    }

    /// Configures the default app from `GoogleService-Info.plist` (main bundle, else the working
    /// directory). As Firebase does, it stops the program when there is no such file or the
    /// default app exists already: both are programming errors.
    public static func configure() {
        guard let options = FirebaseOptions.defaultOptions() else {
            fatalError("`FirebaseApp.configure()` could not find a valid GoogleService-Info.plist in your project.")
        }
        configure(options: options)
    }

    /// Configures the default app with `options`.
    public static func configure(options: FirebaseOptions) {
        configure(name: defaultAppName, options: options)
    }

    /// Configures an app named `name` with `options`; a name already in use stops the program.
    public static func configure(name: String, options: FirebaseOptions) {
        precondition(!name.isEmpty, "A Firebase app name must not be empty.")
        let app = FirebaseApp(name: name, values: options.values)
        let added = apps.withLock { apps in
            guard apps[name] == nil else { return false }
            apps[name] = app
            return true
        }
        precondition(
            added,
            name == defaultAppName
                ? "Default app has already been configured." : "App named \(name) has already been configured.")
        EagerComponents.setUp(app)
    }

    /// The default app, if it is configured.
    public static func app() -> FirebaseApp? {
        app(name: defaultAppName)
    }

    /// The app named `name`, if it is configured.
    public static func app(name: String) -> FirebaseApp? {
        apps.withLock { $0[name] }
    }

    /// Every configured app by name; `nil` when there is none, as Firebase answers.
    public static var allApps: [String: FirebaseApp]? {
        let all = apps.withLock { $0 }
        return all.isEmpty ? nil : all
    }

    /// Removes the app, so that its name may be configured again; `completion` says whether it
    /// was configured.
    public func delete(_ completion: @escaping @Sendable (Bool) -> Void) {
        completion(removeFromRegistry())
    }

    /// Removes the app; whether it was configured.
    @discardableResult
    public func delete() async -> Bool {
        removeFromRegistry()
    }

    private func removeFromRegistry() -> Bool {
        let removed = Self.apps.withLock { apps in
            guard apps[name] === self else { return false }
            apps[name] = nil
            return true
        }
        if removed {
            for handler in Self.deletionHandlers.withLock({ $0 }) { handler(self) }
        }
        return removed
    }

    private static let deletionHandlers = LockedValue<[@Sendable (FirebaseApp) -> Void]>([])

    /// Lets an SDK module release what it holds for an app (connections, caches) when the app
    /// is deleted, as Firebase's components do. Not part of Firebase's API.
    @_spi(HearthSDK)
    public static func addDeletionHandler(_ handler: @escaping @Sendable (FirebaseApp) -> Void) {
        deletionHandlers.withLock { $0.append(handler) }
    }
}
