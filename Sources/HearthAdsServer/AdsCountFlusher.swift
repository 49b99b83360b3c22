import ServiceLifecycle

/// Adds the requests, fills and invalid events counted in memory to the ads store once a second
/// (``AdsService/flush()``), and a last time at shutdown.
package struct AdsCountFlusher: Service {
    let ads: AdsService

    package init(ads: AdsService) {
        self.ads = ads
    }

    package func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(1))
                await ads.flush()
            }
        }
        await ads.flush()
    }
}
