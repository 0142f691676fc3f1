import ITunesSearch
import Logging
import NetworkBasics
import TransferEngine

extension LocalDownloadControl {
    /// The control of one command that runs in this process: its catalog keeps no answers (a
    /// command asks nothing twice), and its downloads run only when `downloading` (`download`,
    /// `resume`; not a command that only looks or edits). Previews and covers are fetched trusting
    /// what the catalog trusts, through its proxies (``CatalogConfiguration/trustRoots``, ``CatalogConfiguration/proxies``).
    public static func forCommand(
        home: HalfTunesHome, catalog: CatalogConfiguration, downloading: Bool, tagging: TaggingOptions,
        durability: Durability, bandwidthLimit: Int? = nil
    ) -> LocalDownloadControl {
        var catalog = catalog
        catalog.cacheCapacity = 0
        var session = TransferSessionConfiguration()
        session.startsTransfers = downloading
        session.durability = durability
        session.trustRoots = catalog.trustRoots
        session.proxies = catalog.proxies
        session.bandwidthLimit = bandwidthLimit
        return LocalDownloadControl(
            home: home, configuration: session, tagging: tagging,
            catalog: { [catalog] sharing in
                try ITunesCatalog(
                    configuration: catalog, httpClient: sharing?.client(for: catalog.baseURL),
                    logger: Logger(label: "halftunes.catalog"))
            },
            logger: Logger(label: "halftunes.downloads"))
    }
}
