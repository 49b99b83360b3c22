import Dispatch

/// The queue an SDK module's callbacks run on unless the app chooses one: the main queue on
/// Apple platforms, and on Linux a serial queue of the module's own, since a command-line
/// program runs no main loop. Not part of Firebase's API.
@_spi(HearthSDK)
public func defaultCallbackQueue(label: String) -> DispatchQueue {
    #if canImport(Darwin)
        DispatchQueue.main
    #else
        DispatchQueue(label: label)
    #endif
}
