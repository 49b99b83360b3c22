import Foundation
import Synchronization

/// A progress bar on standard error: `[#########...........]  45%  32.1 of 72.0 MB`, redrawn
/// in place when the shown percentage changes. Safe to update from any task.
final class ProgressBar: Sendable {
    private let label: String
    private let state: Mutex<(done: Int, total: Int, shownPercent: Int)>

    init(_ label: String, total: Int) {
        self.label = label
        self.state = Mutex((done: 0, total: total, shownPercent: -1))
    }

    /// Records that `count` more units are expected than the total said so far.
    func expect(_ count: Int) {
        state.withLock { $0.total += count }
    }

    /// Records `count` more units done.
    func advance(by count: Int) {
        let line: String? = state.withLock { state in
            state.done += count
            let percent = state.total > 0 ? min(100, state.done * 100 / state.total) : 100
            guard percent != state.shownPercent else { return nil }
            state.shownPercent = percent
            let filled = percent / 5
            return "\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 20 - filled))] "
                + "\(String(percent).leftPadded(to: 3))%  \(Self.megabytes(state.done)) of \(Self.megabytes(state.total)) MB"
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Ends the bar's line with `note`.
    func finish(_ note: String) {
        FileHandle.standardError.write(Data("  \(note)\n".utf8))
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
