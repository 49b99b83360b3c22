import Dispatch

/// The one serial queue every database instance does its work on, as Firebase's SDK does
/// (spec §17.12): public methods validate on the caller's thread, then hand work to this queue.
enum DatabaseWorker {
    static let queue = DispatchQueue(label: "hearth.database.worker")
}
