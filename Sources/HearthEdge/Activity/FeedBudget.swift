/// How many records the requests feed publishes each second: every request up to
/// ``perSecond``, then only failed ones up to ``failedPerSecond``. What it leaves out is counted
/// and reported with the next record it publishes. A browser cannot show 20,000 requests a
/// second, and recording them all would halve the server's throughput; a refusal, what the view
/// is mostly opened for, still shows under a flood of successes.
struct FeedBudget {
    let perSecond: Int
    let failedPerSecond: Int
    private var second: Int64 = 0
    private var published = 0
    private var failedPublished = 0
    private var leftOut = 0

    init(perSecond: Int, failedPerSecond: Int) {
        self.perSecond = perSecond
        self.failedPerSecond = failedPerSecond
    }

    /// Whether the record of a request that ended in `second` (since 1970) is published: then
    /// how many were left out before it, else `nil`.
    mutating func admit(failed: Bool, second now: Int64) -> Int? {
        if now != second {
            second = now
            published = 0
            failedPublished = 0
        }
        if published < perSecond {
            published += 1
        } else if failed, failedPublished < failedPerSecond {
            failedPublished += 1
        } else {
            leftOut += 1
            return nil
        }
        defer { leftOut = 0 }
        return leftOut
    }
}
