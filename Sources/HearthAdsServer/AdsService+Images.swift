/// The images uploaded for creatives: kept by their hash, removed only when no creative shows
/// them. Both run in the catalog's queue of changes, so that no creative comes to name an image
/// as it is removed.
extension AdsService {
    /// Keeps `image` (one with the same bytes may be kept already).
    func upload(_ image: CreativeImage) async throws {
        try await change { catalog in
            try await self.store.put(image)
            return (catalog, ())
        }
    }

    /// Removes the image `hash`, unless a creative shows it.
    func deleteImage(hash: String) async throws {
        try await change { catalog in
            guard try await self.store.image(hash: hash) != nil else { throw AdsError.notFound(kind: "image", id: hash) }
            let path = CreativeImage.path(of: hash)
            let users = catalog.creatives.values.filter { $0.imageURL?.hasSuffix(path) == true }.map(\.creativeID).sorted()
            guard users.isEmpty else { throw AdsError.imageInUse(hash: hash, creatives: users) }
            try await self.store.deleteImage(hash: hash)
            return (catalog, ())
        }
    }
}
