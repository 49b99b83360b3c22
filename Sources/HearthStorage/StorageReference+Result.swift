import Foundation

/// The Firebase Apple SDK's `Result` forms of the completion calls: `{ result in … }` instead of
/// `{ value, error in … }`.
extension StorageReference {
    public func downloadURL(completion: @escaping (Result<URL, any Error>) -> Void) {
        downloadURL(completion: resultCompletion(completion))
    }

    @discardableResult
    public func getData(maxSize: Int64, completion: @escaping (Result<Data, any Error>) -> Void) -> StorageDownloadTask {
        getData(maxSize: maxSize, completion: resultCompletion(completion))
    }

    public func getMetadata(completion: @escaping (Result<StorageMetadata, any Error>) -> Void) {
        getMetadata(completion: resultCompletion(completion))
    }

    public func list(maxResults: Int64, pageToken: String, completion: @escaping (Result<StorageListResult, any Error>) -> Void) {
        list(maxResults: maxResults, pageToken: pageToken, completion: resultCompletion(completion))
    }

    public func list(maxResults: Int64, completion: @escaping (Result<StorageListResult, any Error>) -> Void) {
        list(maxResults: maxResults, completion: resultCompletion(completion))
    }

    public func listAll(completion: @escaping (Result<StorageListResult, any Error>) -> Void) {
        listAll(completion: resultCompletion(completion))
    }

    @discardableResult
    public func putData(
        _ data: Data, metadata: StorageMetadata? = nil, completion: @escaping (Result<StorageMetadata, any Error>) -> Void
    ) -> StorageUploadTask {
        putData(data, metadata: metadata, completion: resultCompletion(completion))
    }

    @discardableResult
    public func putFile(
        from url: URL, metadata: StorageMetadata? = nil, completion: @escaping (Result<StorageMetadata, any Error>) -> Void
    ) -> StorageUploadTask {
        putFile(from: url, metadata: metadata, completion: resultCompletion(completion))
    }

    public func updateMetadata(_ metadata: StorageMetadata, completion: @escaping (Result<StorageMetadata, any Error>) -> Void) {
        updateMetadata(metadata, completion: resultCompletion(completion))
    }

    @discardableResult
    public func write(toFile fileURL: URL, completion: @escaping (Result<URL, any Error>) -> Void) -> StorageDownloadTask {
        write(toFile: fileURL, completion: resultCompletion(completion))
    }
}

/// The `(value, error)` completion that hands `completion` the same outcome as a `Result`.
private func resultCompletion<Value>(_ completion: @escaping (Result<Value, any Error>) -> Void) -> (Value?, (any Error)?) -> Void {
    { value, error in
        if let value {
            completion(.success(value))
        } else {
            completion(.failure(error ?? StorageError.internalError(message: "The call ended with neither a result nor an error.")))
        }
    }
}
