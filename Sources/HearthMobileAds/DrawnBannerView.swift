#if os(iOS) || os(macOS)
    import WebKit

    #if os(iOS)
        import SafariServices
        import UIKit

        /// The view class banners are: `UIView` on iOS, `NSView` on the Mac.
        public typealias BannerSuperview = UIView
        typealias PlatformImage = UIImage
        typealias PlatformImageView = UIImageView
        /// The view controller that presents an ad's page.
        public typealias AdPresentingController = UIViewController
    #else
        import AppKit

        /// The view class banners are: `UIView` on iOS, `NSView` on the Mac.
        public typealias BannerSuperview = NSView
        typealias PlatformImage = NSImage
        typealias PlatformImageView = NSImageView
        /// The view controller a banner belongs to.
        public typealias AdPresentingController = NSViewController
    #endif

    /// A banner ad, under the Google Mobile Ads SDK's name: a view of its ad size (its intrinsic
    /// content size) that draws the creative the server chose, centred when smaller. The
    /// impression is recorded once the creative is drawn (the image fetched, the markup loaded)
    /// with any of it on screen; the viewable impression once half of the creative's pixels
    /// stay on screen for one continuous second, measured ten times a second, clipping by
    /// enclosing views and the window included.
    ///
    /// On iOS a tap opens the ad's page over ``rootViewController``, or leaves the app for a
    /// store's link; on the Mac every ad link opens in the browser, leaving the app.
    @MainActor
    open class BannerView: BannerSuperview {
        let controller: BannerController
        /// The view controller that presents the ad's page (on iOS; the window's root when `nil`).
        public weak var rootViewController: AdPresentingController?
        private let imageView = PlatformImageView()
        private var webView: WKWebView?
        private var webLoad: WebLoadObserver?
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
            controller.onResize = { [weak self] in self?.adSizeChanged() }
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

        /// The ad size, so that constraints placing the banner need not size it.
        open override var intrinsicContentSize: CGSize {
            controller.adSize.resolved(screen: DeviceScreen.size)
        }

        private func adSizeChanged() {
            invalidateIntrinsicContentSize()
            let size = intrinsicContentSize
            frame = CGRect(origin: frame.origin, size: size)
        }

        /// Starts measuring what is on screen when the banner enters a window; stops when it
        /// leaves.
        private func windowChanged() {
            visibilityTimer?.invalidate()
            visibilityTimer = nil
            measureVisibility()
            guard window != nil else { return }
            let timer = Timer(timeInterval: 0.1, repeats: true) { [weak self] timer in
                MainActor.assumeIsolated {
                    guard let self else { return timer.invalidate() }
                    self.measureVisibility()
                }
            }
            // In the common modes, so that it also runs while a scroll view tracks a finger.
            RunLoop.main.add(timer, forMode: .common)
            visibilityTimer = timer
        }

        private func measureVisibility() {
            controller.setVisibleFraction(visibleFraction())
        }

        /// The part of the creative's frame (the banner's bounds before one arrives) the user can
        /// see: clipped by every enclosing view that clips and by the window, when the banner and
        /// the views enclosing it are shown (and on iOS the app is active, on the Mac its window
        /// not covered).
        private func visibleFraction() -> Double {
            guard let window else { return 0 }
            let measured = controller.shown == nil ? bounds : centred(controller.rendered?.frame.size ?? bounds.size)
            guard measured.width > 0, measured.height > 0 else { return 0 }
            #if os(iOS)
                guard UIApplication.shared.applicationState == .active else { return 0 }
            #else
                guard window.isVisible, window.occlusionState.contains(.visible) else { return 0 }
            #endif
            var visible = convert(measured, to: nil)
            var view: BannerSuperview? = self
            while let current = view {
                #if os(iOS)
                    if current.isHidden || current.alpha < 0.01 { return 0 }
                    let clips = current.clipsToBounds
                #else
                    if current.isHidden || current.alphaValue < 0.01 { return 0 }
                    let clips = current.layer?.masksToBounds ?? false || current is NSClipView
                #endif
                if clips, current !== self { visible = visible.intersection(current.convert(current.bounds, to: nil)) }
                view = current.superview
            }
            #if os(iOS)
                visible = visible.intersection(window.bounds)
            #else
                visible = visible.intersection(window.contentView?.bounds ?? .zero)
            #endif
            guard !visible.isNull else { return 0 }
            return Double(visible.width * visible.height / (measured.width * measured.height))
        }

        /// A rectangle of `size` centred in the banner's bounds.
        private func centred(_ size: CGSize) -> CGRect {
            CGRect(
                x: ((bounds.width - size.width) / 2).rounded(.down), y: ((bounds.height - size.height) / 2).rounded(.down),
                width: size.width, height: size.height)
        }

        /// Draws what the controller shows: the image (fetched) or the markup, centred; the
        /// controller hears when it is drawn.
        private func draw() {
            imageLoad?.cancel()
            imageView.image = nil
            webView?.removeFromSuperview()
            webView = nil
            webLoad = nil
            guard let ad = controller.rendered else { return measureVisibility() }
            controller.setCreativeDrawn(false)
            let frame = centred(ad.frame.size)
            if let html = ad.html {
                let web = WKWebView(frame: frame)
                let observer = WebLoadObserver { [weak self] in self?.controller.setCreativeDrawn(true) }
                web.navigationDelegate = observer
                web.loadHTMLString(html, baseURL: nil)
                addSubview(web)
                webView = web
                webLoad = observer
            } else if let url = ad.imageURL.flatMap(URL.init(string:)) {
                imageView.frame = frame
                imageLoad = Task { [weak self] in
                    // A creative that cannot be fetched stays blank: nothing is counted for it,
                    // and the banner still refreshes.
                    guard let (data, _) = try? await URLSession.shared.data(from: url), let image = PlatformImage(data: data) else {
                        return
                    }
                    guard let self, !Task.isCancelled else { return }
                    self.imageView.image = image
                    self.controller.setCreativeDrawn(true)
                }
            }
        }

        /// Keeps the creative centred when the banner is resized.
        private func centreCreative() {
            guard let size = controller.rendered?.frame.size else { return }
            imageView.frame = centred(size)
            webView?.frame = centred(size)
        }

        #if os(iOS)
            open override func layoutSubviews() {
                super.layoutSubviews()
                centreCreative()
            }

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

            /// Presents the page over the topmost view controller of the banner's window; when
            /// none can present it, the page is at once taken as closed.
            private func present(_ url: URL) {
                var presenter = rootViewController ?? window?.rootViewController
                while let above = presenter?.presentedViewController, !above.isBeingDismissed { presenter = above }
                guard let presenter, presenter.viewIfLoaded?.window != nil else {
                    controller.screenDismissed()
                    return
                }
                let page = SFSafariViewController(url: url)
                let closer = PageCloser { [weak self] in self?.controller.screenDismissed() }
                page.delegate = closer
                page.presentationController?.delegate = closer
                pageCloser = closer
                presenter.present(page, animated: true)
            }
        #else
            open override func layout() {
                super.layout()
                centreCreative()
            }

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
        #endif
    }

    /// Tells a banner when the markup of an HTML creative has loaded.
    @MainActor
    private final class WebLoadObserver: NSObject, @preconcurrency WKNavigationDelegate {
        let loaded: @MainActor () -> Void

        init(loaded: @escaping @MainActor () -> Void) {
            self.loaded = loaded
        }

        func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) {
            loaded()
        }
    }

    #if os(iOS)
        /// Tells a banner that the page it presented was closed: by its Done button, or swiped
        /// away.
        @MainActor
        private final class PageCloser: NSObject, @preconcurrency SFSafariViewControllerDelegate,
            @preconcurrency UIAdaptivePresentationControllerDelegate
        {
            let closed: @MainActor () -> Void

            init(closed: @escaping @MainActor () -> Void) {
                self.closed = closed
            }

            func safariViewControllerDidFinish(_ controller: SFSafariViewController) {
                closed()
            }

            func presentationControllerDidDismiss(_ presentationController: UIPresentationController) {
                closed()
            }
        }
    #endif
#endif
