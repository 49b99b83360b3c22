import HearthCore

/// One `runTransactionBlock` call in progress (spec §17.8).
final class Transaction {
    enum Status {
        /// Ready to be (re)sent.
        case run
        /// On the wire, awaiting the server's answer.
        case sent
        /// On the wire, but a local set aborted it: abort unless the server answers `ok`.
        case sentNeedsAbort(reason: String)
        /// Finished; leaves the queue.
        case completed
    }

    typealias Update = AppBlock<(MutableData) -> TransactionResult>
    typealias Completion = @Sendable ((any Error)?, Bool, DataSnapshot?) -> Void

    /// The most times the block runs before the transaction gives up (`maxretry`).
    static let maximumRetries = 25

    let path: DatabasePath
    let update: Update
    let completion: Completion?
    let appliesLocally: Bool
    /// The hidden value observer that keeps the location listened while the transaction runs.
    let observerHandle: DatabaseHandle
    var status = Status.run
    var retryCount = 0
    var writeID: Int
    /// The value the block last ran on, and what it returned.
    var input: Node
    var output: Node

    init(
        path: DatabasePath, update: Update, completion: Completion?, appliesLocally: Bool,
        observerHandle: DatabaseHandle, writeID: Int, input: Node, output: Node
    ) {
        self.path = path
        self.update = update
        self.completion = completion
        self.appliesLocally = appliesLocally
        self.observerHandle = observerHandle
        self.writeID = writeID
        self.input = input
        self.output = output
    }

    var isRunnable: Bool {
        if case .run = status { return true }
        return false
    }

    var isCompleted: Bool {
        if case .completed = status { return true }
        return false
    }

    /// Runs the block on `input`; the data to write, or `nil` when the block aborted. Server
    /// values the block sets resolve against `serverTime` (the client's estimate).
    func run(on input: Node, serverTime: Int64) -> Node? {
        self.input = input
        return update.call(MutableData(node: input, serverTime: serverTime)).node
    }
}
