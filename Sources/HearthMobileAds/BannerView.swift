import Foundation

// What every platform's BannerView has: the Google Mobile Ads SDK's properties and load,
// kept by the banner's controller.
extension BannerView {
    /// The ad unit the banner is filled for (`ca-app-pub-…/…`), as the server's catalog names it.
    public var adUnitID: String? {
        get { controller.adUnitID }
        set { controller.adUnitID = newValue }
    }

    /// The banner's size; a change applies from the next load.
    public var adSize: AdSize {
        get { controller.adSize }
        set { controller.adSize = newValue }
    }

    /// Told of the banner's loads, impressions, clicks and pages (held weakly).
    public var delegate: (any BannerViewDelegate)? {
        get { controller.delegate }
        set { controller.delegate = newValue }
    }

    /// Where the last ad came from; `nil` before one arrives.
    public var responseInfo: ResponseInfo? { controller.responseInfo }

    /// Asks the server for an ad, dropping whatever an earlier load would still do.
    public func load(_ request: Request?) {
        controller.load(request)
    }
}
