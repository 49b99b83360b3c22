/// How a namespace's store keeps its journal and its history (``NamespaceStore``).
package struct NamespaceStoreOptions: Sendable {
    /// When compactions begin.
    var journalLimits: JournalLedger
    /// The most recent writes the log keeps once folded, for the history; 0 keeps none.
    package var keptWrites: Int
    /// The most bytes of log rows kept once folded.
    package var keptBytes: Int
    /// The memory the pages read from every namespace's file may take together, by estimate
    /// (``PageCache``); changed subtrees and listened ones come on top.
    package var cacheBytes = 512 << 20
    /// The most rows a page reads whole; a larger subtree is read one level deep
    /// (``PageLoader``).
    var wholePageRows = 4096
    /// Where the node's durable log is archived for restores to a point in time (``LogArchive``);
    /// `nil` archives nothing.
    package var logArchiveDirectory: String?

    package init(keptWrites: Int = 100_000, keptBytes: Int = 64 << 20) {
        self.init(journalLimits: JournalLedger(), keptWrites: keptWrites, keptBytes: keptBytes)
    }

    init(journalLimits: JournalLedger, keptWrites: Int = 100_000, keptBytes: Int = 64 << 20) {
        self.journalLimits = journalLimits
        self.keptWrites = keptWrites
        self.keptBytes = keptBytes
    }
}
