import Foundation

#if canImport(UniformTypeIdentifiers)
    import UniformTypeIdentifiers
#endif

/// The media type `putFile` gives a file whose metadata names none, from its extension, as the
/// Firebase Apple SDK does: the system's type registry on Apple platforms, a table of common
/// types elsewhere.
enum MediaTypes {
    static func forFile(_ url: URL) -> String? {
        let fileExtension = url.pathExtension.lowercased()
        guard !fileExtension.isEmpty else { return nil }
        #if canImport(UniformTypeIdentifiers)
            return UTType(filenameExtension: fileExtension)?.preferredMIMEType
        #else
            return common[fileExtension]
        #endif
    }

    private static let common = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "svg": "image/svg+xml", "bmp": "image/bmp", "tif": "image/tiff",
        "tiff": "image/tiff", "pdf": "application/pdf", "json": "application/json", "txt": "text/plain", "html": "text/html",
        "htm": "text/html", "css": "text/css", "js": "text/javascript", "csv": "text/csv", "xml": "application/xml",
        "zip": "application/zip", "gz": "application/gzip", "mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mp3": "audio/mpeg",
    ]
}
