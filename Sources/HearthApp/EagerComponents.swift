/// An SDK module that must exist as soon as an app is configured, as Firebase's eagerly
/// instantiated components do: HearthAuth, so that the signed-in user kept from an earlier run
/// signs the app's first database and storage requests, whichever module the app touches first.
/// Not part of Firebase's API.
@_spi(HearthSDK)
public protocol EagerAppComponent {
    /// Sets the module up for `app`, which has just been configured.
    static func appWasConfigured(_ app: FirebaseApp)
}

/// The eager components, found by name in the running program: a module the program does not
/// link is not there, and is not set up (HearthApp cannot depend on the modules built on it).
enum EagerComponents {
    /// `Module.Class` names, the form the runtime's lookup resolves: renaming the module or the
    /// class needs this list changed (HearthAuth's tests fail otherwise).
    static let typeNames = ["HearthAuth.Auth"]

    static func setUp(_ app: FirebaseApp) {
        for name in typeNames {
            (_typeByName(name) as? any EagerAppComponent.Type)?.appWasConfigured(app)
        }
    }
}
