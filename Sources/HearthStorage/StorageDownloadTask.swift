import AsyncHTTPClient
import Foundation
import NIOCore

/// A download in progress: `alt=media` streamed to a file a piece at a time, continued with a
/// `Range` request after a dropped connection, until ``Storage/maxDownloadRetryTime`` passes.
public final class StorageDownloadTask: StorageObservableTask, @unchecked Sendable {
    /// The file written; `nil` for a download into memory (``StorageReference/getData(maxSize:completion:)``).
    private let destination: URL?

    init(reference: StorageReference, destination: URL?) {
        self.destination = destination
        super.init(reference: reference)
    }

    /// Downloads to the destination; answers it, or throws why it failed (also reported).
    func run() async throws -> URL {
        guard let destination else { throw StorageError.invalidArgument(message: "This download has no destination file.") }
        return try await track {
            try await download(to: destination)
            return destination
        }
    }

    private func download(to destination: URL) async throws {
        FileManager.default.createFile(atPath: destination.path, contents: nil)
        let file = try FileHandle(forWritingTo: destination)
        defer { try? file.close() }
        try file.truncate(atOffset: 0)
        let client = StorageClient(reference)
        var written: Int64 = 0
        var retryDeadline: Date?
        while true {
            try await checkpoint()
            var request = HTTPClientRequest(url: reference.objectURL + "?alt=media")
            request.headers = try await client.headers()
            if written > 0 { request.headers.add(name: "Range", value: "bytes=\(written)-") }
            do {
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
                guard response.status == .ok || response.status == .partialContent else {
                    let body = try await response.body.collect(upTo: 1 << 20)
                    throw StorageError(status: response.status.code, body: String(buffer: body), reference: reference)
                }
                if response.status == .ok && written > 0 {
                    // The server sent the whole object again: start over.
                    try file.truncate(atOffset: 0)
                    written = 0
                }
                if let length = response.headers.first(name: "Content-Length").flatMap(Int64.init) {
                    progress.totalUnitCount = written + length
                }
                for try await piece in response.body {
                    file.write(Data(piece.readableBytesView))
                    written += Int64(piece.readableBytes)
                    progress.completedUnitCount = written
                    report(.progress)
                    try await checkpoint()
                }
                return
            } catch let error as StorageError {
                throw error
            } catch {
                let deadline = retryDeadline ?? Date().addingTimeInterval(reference.storage.maxDownloadRetryTime)
                retryDeadline = deadline
                guard Date() < deadline else { throw StorageError.network(error) }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}

extension StorageReference {
    /// Downloads the object into memory; an object larger than `maxSize` bytes fails with
    /// ``StorageErrorCode/downloadSizeExceeded`` as soon as its size is known.
    public func getData(maxSize: Int64) async throws -> Data {
        var request = HTTPClientRequest(url: objectURL + "?alt=media")
        request.headers = try await StorageClient(self).headers()
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        } catch {
            throw StorageError.network(error)
        }
        guard response.status == .ok else {
            let body = (try? await response.body.collect(upTo: 1 << 20)).map { String(buffer: $0) } ?? ""
            throw StorageError(status: response.status.code, body: body, reference: self)
        }
        let length = response.headers.first(name: "Content-Length").flatMap(Int64.init)
        if let length, length > maxSize { throw StorageError.downloadSizeExceeded(total: length, maxSize: maxSize) }
        var data = Data()
        do {
            for try await piece in response.body {
                data.append(contentsOf: piece.readableBytesView)
                if Int64(data.count) > maxSize { throw StorageError.downloadSizeExceeded(total: Int64(data.count), maxSize: maxSize) }
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.network(error)
        }
        return data
    }

    /// ``getData(maxSize:)`` under the name of Firebase's Swift API.
    public func data(maxSize: Int64) async throws -> Data {
        try await getData(maxSize: maxSize)
    }

    /// Downloads the object into memory; `completion` gets the bytes or the error.
    @discardableResult
    public func getData(maxSize: Int64, completion: @escaping (Data?, (any Error)?) -> Void) -> StorageDownloadTask {
        let task = StorageDownloadTask(reference: self, destination: nil)
        callBack(completion) {
            try await task.track { try await self.getData(maxSize: maxSize) }
        }
        return task
    }

    /// Downloads the object to the file at `fileURL`, streamed; observe the task for progress.
    @discardableResult
    public func write(toFile fileURL: URL, completion: ((URL?, (any Error)?) -> Void)? = nil) -> StorageDownloadTask {
        let task = StorageDownloadTask(reference: self, destination: fileURL)
        callBack(completion) { try await task.run() }
        return task
    }

    /// Downloads the object to the file at `fileURL` and answers it.
    public func writeAsync(toFile fileURL: URL, onProgress: ((Progress?) -> Void)? = nil) async throws -> URL {
        let task = StorageDownloadTask(reference: self, destination: fileURL)
        if let onProgress { task.observe(.progress) { onProgress($0.progress) } }
        return try await task.run()
    }
}
