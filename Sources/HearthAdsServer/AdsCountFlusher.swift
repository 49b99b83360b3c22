import ServiceLifecycle

/// Adds the requests, fills and invalid events counted in memory to the ads store once a second
/// (``AdsService/flush()``), and a last time at shutdown; once a minute, forgets the events whose
/// tokens expired. On a node of a cluster, it does so while the node serves the ads service.
package struct AdsCountFlusher: Service {
    let ads: AdsServing

    package init(ads: AdsServing) {
        self.ads = ads
    }

    package func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var seconds = 0
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                guard let service = ads.local else { continue }
                await service.flush()
                seconds += 1
                if seconds % 60 == 0 { await service.forgetExpiredEvents(now: service.clock.now()) }
            }
        }
        await ads.local?.flush()
    }
}
