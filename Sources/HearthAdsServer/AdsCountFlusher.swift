import ServiceLifecycle

/// Adds the requests, fills and invalid events counted in memory to the ads store once a second
/// (``AdsService/flush()``), and a last time at shutdown; once a minute, forgets the events whose
/// tokens expired.
package struct AdsCountFlusher: Service {
    let ads: AdsService

    package init(ads: AdsService) {
        self.ads = ads
    }

    package func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var seconds = 0
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                await ads.flush()
                seconds += 1
                if seconds % 60 == 0 { await ads.forgetExpiredEvents(now: ads.clock.now()) }
            }
        }
        await ads.flush()
    }
}
