import Hummingbird
import NIOCore

/// The context of a request to the web app: Hummingbird's, and the connection it came on (an
/// event stream closes it when the client stops reading).
package struct WebContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The request's connection.
    package let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
