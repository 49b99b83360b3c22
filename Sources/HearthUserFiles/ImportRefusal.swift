import HearthCore

/// A user the server refused to import (`accounts:batchCreate` lists them in `error`), numbered
/// from 0 in file order.
package struct ImportRefusal: Sendable, Equatable {
    package let index: Int
    package let uid: String
    package let message: String

    /// The refusals in `answer`, batchCreate's answer to `batch`, whose first user is number
    /// `offset` of the file.
    package static func refusals(in answer: JSONValue, batch: [JSONValue], offset: Int) -> [ImportRefusal] {
        guard case .array(let errors)? = answer["error"] else { return [] }
        return errors.compactMap { error in
            guard case .number(let number)? = error["index"], let index = Int(exactly: number.doubleValue),
                batch.indices.contains(index)
            else { return nil }
            return ImportRefusal(
                index: offset + index, uid: batch[index]["localId"]?.stringValue ?? "?",
                message: error["message"]?.stringValue ?? "refused")
        }
    }
}
