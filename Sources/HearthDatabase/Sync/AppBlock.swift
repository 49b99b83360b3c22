/// A block the app passed to the Firebase-style API. Those blocks are not `Sendable` (Firebase's
/// are not), yet they travel from the caller to the worker queue and run on the callback queue;
/// they only ever run there, one at a time, which makes the transfer safe.
struct AppBlock<Block>: @unchecked Sendable {
    let call: Block

    init(_ call: Block) {
        self.call = call
    }
}
