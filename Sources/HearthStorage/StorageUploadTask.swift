import Foundation
import NIOCore

/// An upload in progress (spec storage-api §4.4): a resumable upload sent in chunks read from
/// memory or from a file as they go, resumed from the bytes the server acknowledged after a
/// dropped connection, until ``Storage/maxUploadRetryTime`` passes.
public final class StorageUploadTask: StorageObservableTask, @unchecked Sendable {
    /// Where the bytes come from.
    enum Source: Sendable {
        case data(Data)
        case file(URL)
    }

    private let source: Source
    private let metadata: StorageMetadata?

    init(reference: StorageReference, source: Source, metadata: StorageMetadata?) {
        self.source = source
        self.metadata = metadata
        super.init(reference: reference)
    }

    /// Starts the upload; answers its metadata, or throws why it failed (also reported to
    /// observers).
    func run() async throws -> StorageMetadata {
        do {
            let result = try await upload()
            // Every upload, one chunk or many, ends with progress at 100% before success.
            progress.completedUnitCount = progress.totalUnitCount
            report(.progress)
            report(.success, metadata: result)
            return result
        } catch {
            let failure = (error as? StorageClientFailure)?.storageError ?? error
            report(.failure, error: failure)
            throw failure
        }
    }

    private func upload() async throws -> StorageMetadata {
        let total = try size()
        progress.totalUnitCount = total
        report(.resume)
        let client = StorageClient(reference)
        let uploadURL = try await start(client, total: total)
        var offset: Int64 = 0
        var retryDeadline: Date?
        while true {
            do {
                try await checkpoint()
            } catch {
                _ = try? await client.send(.POST, uploadURL, headers: [("X-Goog-Upload-Command", "cancel")])
                throw error
            }
            let length = min(reference.storage.uploadChunkSizeBytes, total - offset)
            let final = offset + length == total
            do {
                let chunk = try read(offset: offset, length: length)
                let answer = try await client.send(
                    .POST, uploadURL,
                    headers: [("X-Goog-Upload-Command", final ? "upload, finalize" : "upload"), ("X-Goog-Upload-Offset", String(offset))],
                    body: chunk)
                retryDeadline = nil
                if final { return StorageMetadata(json: try StorageClient.object(answer.body)) }
                offset = answer.headers.first(name: "X-Goog-Upload-Size-Received").flatMap { Int64($0) } ?? offset + length
                progress.completedUnitCount = offset
                report(.progress)
            } catch let failure as StorageClientFailure {
                // No answer: wait a moment, ask the server what it has, and go on from there.
                let deadline = retryDeadline ?? Date().addingTimeInterval(reference.storage.maxUploadRetryTime)
                retryDeadline = deadline
                guard Date() < deadline else { throw failure.storageError }
                try? await Task.sleep(for: .milliseconds(200))
                guard let status = try? await client.send(.POST, uploadURL, headers: [("X-Goog-Upload-Command", "query")]) else { continue }
                if status.headers.first(name: "X-Goog-Upload-Status") == "final" {
                    return StorageMetadata(json: try StorageClient.object(status.body))
                }
                offset = status.headers.first(name: "X-Goog-Upload-Size-Received").flatMap { Int64($0) } ?? offset
            }
        }
    }

    /// The start request; answers the upload URL.
    private func start(_ client: StorageClient, total: Int64) async throws -> String {
        var resource = metadata?.writable ?? [:]
        resource["name"] = reference.fullPath
        if resource["contentType"] == nil, case .file(let url) = source, let inferred = MediaTypes.forFile(url) {
            resource["contentType"] = inferred
        }
        let contentType = resource["contentType"] as? String ?? "application/octet-stream"
        let body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: resource))
        let url = reference.bucketURL + "?" + StorageClient.query([URLQueryItem(name: "name", value: reference.fullPath)])
        let answer = try await client.checked(
            .POST, url,
            headers: [
                ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                ("X-Goog-Upload-Header-Content-Length", String(total)), ("X-Goog-Upload-Header-Content-Type", contentType),
                ("Content-Type", "application/json; charset=utf-8"),
            ],
            body: body)
        guard let uploadURL = answer.headers.first(name: "X-Goog-Upload-URL") else {
            throw StorageError.invalidAnswer(String(buffer: answer.body))
        }
        return uploadURL
    }

    private func size() throws -> Int64 {
        switch source {
        case .data(let data): return Int64(data.count)
        case .file(let url):
            guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber else {
                throw StorageError.unknown(
                    message: "File at URL: \(url) is not reachable. Ensure file URL is not a directory, symbolic link, or invalid url.",
                    serverError: [:])
            }
            return size.int64Value
        }
    }

    /// `length` bytes from `offset`: only this chunk is in memory.
    private func read(offset: Int64, length: Int64) throws -> ByteBuffer {
        switch source {
        case .data(let data):
            let start = data.startIndex + Int(offset)
            return ByteBuffer(bytes: data[start..<start + Int(length)])
        case .file(let url):
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(offset))
            return ByteBuffer(bytes: try handle.read(upToCount: Int(length)) ?? Data())
        }
    }
}

extension StorageReference {
    /// Uploads `data`; observe the task for progress and its outcome.
    @discardableResult
    public func putData(
        _ data: Data, metadata: StorageMetadata? = nil, completion: ((StorageMetadata?, (any Error)?) -> Void)? = nil
    ) -> StorageUploadTask {
        let task = StorageUploadTask(reference: self, source: .data(data), metadata: metadata)
        callBack(completion) { try await task.run() }
        return task
    }

    /// Uploads the file at `url`, read a chunk at a time.
    @discardableResult
    public func putFile(
        from url: URL, metadata: StorageMetadata? = nil, completion: ((StorageMetadata?, (any Error)?) -> Void)? = nil
    ) -> StorageUploadTask {
        let task = StorageUploadTask(reference: self, source: .file(url), metadata: metadata)
        callBack(completion) { try await task.run() }
        return task
    }

    /// Uploads `data` and answers the object's metadata; `onProgress` sees the progress.
    public func putDataAsync(
        _ data: Data, metadata: StorageMetadata? = nil, onProgress: ((Progress?) -> Void)? = nil
    ) async throws -> StorageMetadata {
        try await runUpload(StorageUploadTask(reference: self, source: .data(data), metadata: metadata), onProgress)
    }

    /// Uploads the file at `url` and answers the object's metadata.
    public func putFileAsync(
        from url: URL, metadata: StorageMetadata? = nil, onProgress: ((Progress?) -> Void)? = nil
    ) async throws -> StorageMetadata {
        try await runUpload(StorageUploadTask(reference: self, source: .file(url), metadata: metadata), onProgress)
    }

    private func runUpload(_ task: StorageUploadTask, _ onProgress: ((Progress?) -> Void)?) async throws -> StorageMetadata {
        if let onProgress { task.observe(.progress) { onProgress($0.progress) } }
        return try await task.run()
    }
}
