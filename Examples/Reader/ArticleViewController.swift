import Baton
import ExampleSupport
import Foundation

/// An article reader whose activity carries the article's web page, the page and the scroll
/// position: continued in the Reader on another device, or in the web browser where no Reader
/// is installed (handoff-programming-guide, "Native App-to-Web Browser Handoff").
final class ArticleViewController: ViewController, UserActivityDelegate {
    static let readingType = "com.example.reader.reading"
    static let site = "https://reader.example.org/articles/"
    var article = 0, page = 1
    var scroll = 0.0

    override func loadView() { view = ArticleView(identifier: "article") }

    func read(article: Int, page: Int, scroll: Double) {
        (self.article, self.page, self.scroll) = (article, page, scroll)
        let activity = UserActivity(activityType: Self.readingType)
        activity.title = "Article \(article), page \(page)"
        activity.webpageURL = URL(string: "\(Self.site)\(article)?page=\(page)")
        activity.delegate = self
        userActivity = activity
        activity.needsSave = true
        say("reading article \(article), page \(page), scrolled to \(scroll)")
    }

    override func updateUserActivityState(_ activity: UserActivity) {
        activity.addUserInfoEntries(from: ["article": article, "page": page, "scroll": scroll])
    }

    override func restoreUserActivityState(_ activity: UserActivity) {
        super.restoreUserActivityState(activity)
        if activity.activityType == Self.readingType, let info = activity.userInfo,
           let article = info["article"] as? Int, let page = info["page"] as? Int, let scroll = info["scroll"] as? Double {
            (self.article, self.page, self.scroll) = (article, page, scroll)
            say("restoreUserActivityState: article \(article), page \(page), scrolled to \(scroll)")
        } else if activity.activityType == UserActivity.browsingWebType, let url = activity.webpageURL {
            // Web-to-app: a page of this app's domain, from a browser; its path says which article.
            article = Int(url.lastPathComponent) ?? 0
            say("restoreUserActivityState: article \(article) from the browser's \(shown(url.absoluteString))")
        }
    }

    func userActivityWasContinued(_ userActivity: UserActivity) {
        say("userActivityWasContinued: article \(article) continues elsewhere")
        MainLoop.idle { Application.shared.terminate(nil) }
    }
}

final class ArticleView: View {
    override var acceptsFirstResponder: Bool { true }
}
