// Seed 000's AdMob banner (§IV) as a command-line program: the app delegate configures Firebase
// and the Mobile Ads SDK, the view controller loads a banner into its 320×50 slot. The banner
// is headless here; the program then puts it on screen for a second and a half (its impression,
// then its viewable impression) and, with --tap, taps it and closes the page it opened.
//
// Usage: ad-banner --host 127.0.0.1 --port 9000 [--project demo-ads] [--tap]
// It prints the delegate's callbacks and what the banner drew, and exits 1 when no ad came.

import Foundation
import HearthApp
import HearthMobileAds

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: String) -> String {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}
let host = option("--host", "127.0.0.1")
let port = Int(option("--port", "9000")) ?? 9000
let project = option("--project", "demo-ads")

// application(_:didFinishLaunchingWithOptions:)
let options = FirebaseOptions(googleAppID: "1:1234:ios:ads", gcmSenderID: "1234")
options.projectID = project
options.databaseURL = "http://\(host):\(port)?ns=\(project)-default-rtdb"
FirebaseApp.configure(options: options)
GADMobileAds.configure(withApplicationID: "ca-app-pub-3940256099942544~1458002511")

let screen = ViewController()
screen.viewDidLoad()
while screen.callbacks.count < 2 { try await Task.sleep(for: .milliseconds(20)) }
guard screen.callbacks.last == "adViewDidReceiveAd", let banner = screen.bannerView, let ad = banner.renderedAd else { exit(1) }

banner.setVisibleFraction(1)
try await Task.sleep(for: .milliseconds(1500))
if arguments.contains("--tap"), banner.tap(), banner.presentedPageURL != nil {
    banner.dismissPresentedScreen()
}
await banner.waitForEvents()
print("drew \(ad.kind) \(ad.creativeID) at \(Int(ad.frame.minX)),\(Int(ad.frame.minY)) \(Int(ad.frame.width))x\(Int(ad.frame.height))")
