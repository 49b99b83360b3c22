#if os(iOS) || os(macOS)
    import WebKit

    #if os(iOS)
        import SafariServices
        import UIKit

        typealias PlatformView = UIView
        typealias PlatformImage = UIImage
        typealias PlatformImageView = UIImageView
        /// The view controller that presents an ad's page.
        public typealias AdPresentingController = UIViewController
    #else
        import AppKit

        typealias PlatformView = NSView
        typealias PlatformImage = NSImage
        typealias PlatformImageView = NSImageView
        /// The view controller a banner belongs to.
        public typealias AdPresentingController = NSViewController
    #endif

    /// A banner ad, under the Google Mobile Ads SDK's name: a view that draws the creative the
    /// server chose, centred when smaller than the banner. Its impression is recorded when the
    /// creative is first drawn with any of the banner on screen, its viewable impression when
    /// half of it stays on screen for one continuous second (measured ten times a second).
    ///
    /// On iOS a tap opens the ad's page over ``rootViewController``, or leaves the app for a
    /// store's link; on the Mac every ad link opens in the browser, leaving the app.
    @MainActor
    open class BannerView: PlatformView {
        let controller: BannerController
        /// The view controller that presents the ad's page (on iOS; the window's root when `nil`).
        public weak var rootViewController: AdPresentingController?
        private let imageView = PlatformImageView()
        private var webView: WKWebView?
        private var drawn = false
        private var visibilityTimer: Timer?
        private var imageLoad: Task<Void, Never>?
        #if os(iOS)
            private var pageCloser: PageCloser?
        #endif

        /// A banner of `adSize`.
        public init(adSize: AdSize) {
            controller = BannerController(adSize: adSize)
            super.init(frame: CGRect(origin: .zero, size: adSize.resolved(screen: DeviceScreen.size)))
            setUp()
        }

        /// A banner of `adSize` at `origin` in its superview.
        public convenience init(adSize: AdSize, origin: CGPoint) {
            self.init(adSize: adSize)
            frame.origin = origin
        }

        /// A banner from a storyboard or nib, of its frame's size.
        public required init?(coder: NSCoder) {
            controller = BannerController(adSize: AdSizeInvalid)
            super.init(coder: coder)
            controller.adSize = adSizeFor(cgSize: bounds.size)
            setUp()
        }

        private func setUp() {
            controller.view = self
            controller.onChange = { [weak self] in self?.draw() }
            addSubview(imageView)
            #if os(iOS)
                clipsToBounds = true
                addGestureRecognizer(UITapGestureRecognizer(target: self, action: #selector(tapped)))
                controller.presentPage = { [weak self] url in self?.present(url) }
                controller.openOutside = { url in UIApplication.shared.open(url) }
            #else
                wantsLayer = true
                layer?.masksToBounds = true
                imageView.imageScaling = .scaleAxesIndependently
                controller.everyLinkLeavesApplication = true
                controller.openOutside = { url in NSWorkspace.shared.open(url) }
            #endif
        }

        /// Starts measuring what is on screen when the banner enters a window; stops when it
        /// leaves.
        private func windowChanged() {
            visibilityTimer?.invalidate()
            visibilityTimer = nil
            measureVisibility()
            guard window != nil else { return }
            visibilityTimer = Timer.scheduledTimer(withTimeInterval: 0.1, repeats: true) { [weak self] _ in
                MainActor.assumeIsolated { self?.measureVisibility() }
            }
        }

        private func measureVisibility() {
            controller.setVisibleFraction(drawn ? visibleFraction() : 0)
        }

        /// Draws what the controller shows: the image or the markup, at its centred frame.
        private func draw() {
            drawn = false
            imageLoad?.cancel()
            imageView.image = nil
            webView?.removeFromSuperview()
            webView = nil
            guard let ad = controller.rendered else { return measureVisibility() }
            if let html = ad.html {
                let web = WKWebView(frame: ad.frame)
                web.loadHTMLString(html, baseURL: nil)
                addSubview(web)
                webView = web
                drawn = true
                measureVisibility()
            } else if let url = ad.imageURL.flatMap(URL.init(string:)) {
                imageView.frame = ad.frame
                imageLoad = Task { [weak self] in
                    guard let (data, _) = try? await URLSession.shared.data(from: url), let image = PlatformImage(data: data) else {
                        return
                    }
                    guard let self, !Task.isCancelled else { return }
                    self.imageView.image = image
                    self.drawn = true
                    self.measureVisibility()
                }
            }
        }

        #if os(iOS)
            open override func didMoveToWindow() {
                super.didMoveToWindow()
                windowChanged()
            }

            @objc private func tapped() {
                _ = controller.tap()
            }

            /// Taps reach the banner, not the web view drawing an HTML creative.
            open override func hitTest(_ point: CGPoint, with event: UIEvent?) -> UIView? {
                super.hitTest(point, with: event) == nil ? nil : self
            }

            /// The share of the banner the user can see: the part inside its window, when it and
            /// every view above it are shown and the app is active.
            private func visibleFraction() -> Double {
                guard let window, UIApplication.shared.applicationState == .active, bounds.width > 0, bounds.height > 0 else {
                    return 0
                }
                var view: UIView? = self
                while let current = view {
                    if current.isHidden || current.alpha < 0.01 { return 0 }
                    view = current.superview
                }
                let onScreen = convert(bounds, to: window).intersection(window.bounds)
                guard !onScreen.isNull else { return 0 }
                return Double(onScreen.width * onScreen.height / (bounds.width * bounds.height))
            }

            private func present(_ url: URL) {
                guard let presenter = rootViewController ?? window?.rootViewController else {
                    controller.screenDismissed()
                    return
                }
                let page = SFSafariViewController(url: url)
                let closer = PageCloser { [weak self] in self?.controller.screenDismissed() }
                page.delegate = closer
                pageCloser = closer
                presenter.present(page, animated: true)
            }
        #else
            open override func viewDidMoveToWindow() {
                super.viewDidMoveToWindow()
                windowChanged()
            }

            open override func mouseDown(with event: NSEvent) {
                _ = controller.tap()
            }

            /// Clicks reach the banner, not the web view drawing an HTML creative.
            open override func hitTest(_ point: NSPoint) -> NSView? {
                super.hitTest(point) == nil ? nil : self
            }

            /// The share of the banner the user can see: its visible rectangle, when its window
            /// is on screen and not covered, and neither it nor a view above it is hidden.
            private func visibleFraction() -> Double {
                guard let window, window.isVisible, window.occlusionState.contains(.visible), !isHiddenOrHasHiddenAncestor,
                    alphaValue > 0.01, bounds.width > 0, bounds.height > 0
                else { return 0 }
                let visible = visibleRect
                return Double(visible.width * visible.height / (bounds.width * bounds.height))
            }
        #endif
    }

    #if os(iOS)
        /// Tells a banner that the page it presented was closed.
        @MainActor
        private final class PageCloser: NSObject, @preconcurrency SFSafariViewControllerDelegate {
            let closed: @MainActor () -> Void

            init(closed: @escaping @MainActor () -> Void) {
                self.closed = closed
            }

            func safariViewControllerDidFinish(_ controller: SFSafariViewController) {
                closed()
            }
        }
    #endif
#endif
