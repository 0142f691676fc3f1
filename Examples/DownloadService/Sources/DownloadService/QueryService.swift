import Foundation
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The tutorial's `QueryService`, ported: one data task for the search, its JSON read into
/// ``Track``s with `JSONSerialization`, as the tutorial reads it. The changes from the tutorial
/// are the ones the porting article lists: the session type, `import Transfers`, and no
/// `DispatchQueue.main` (a command line has no main run loop to hop to).
public final class QueryService: @unchecked Sendable {
    public typealias JSONDictionary = [String: Any]
    public typealias QueryResult = @Sendable ([Track]?, String) -> Void

    let defaultSession = ResumableURLSession(configuration: .default)
    var dataTask: ResumableDataTask?
    var errorMessage = ""
    var tracks: [Track] = []
    /// The Search API (the tutorial's `https://itunes.apple.com/search`, or a DemoCatalog's).
    let searchURL: URL

    /// A query service asking `searchURL`.
    public init(searchURL: URL = URL(string: "https://itunes.apple.com/search")!) { self.searchURL = searchURL }

    /// Searches for songs and calls `completion` with them (or `nil`) and the errors met.
    public func getSearchResults(searchTerm: String, completion: @escaping QueryResult) {
        dataTask?.cancel()
        if var urlComponents = URLComponents(url: searchURL, resolvingAgainstBaseURL: false) {
            urlComponents.query = "media=music&entity=song&term=\(searchTerm)"
            guard let url = urlComponents.url else { return }
            dataTask = defaultSession.dataTask(with: url) { [weak self] data, response, error in
                defer { self?.dataTask = nil }
                if let error = error {
                    self?.errorMessage += "DataTask error: " + error.localizedDescription + "\n"
                } else if let data = data, let response = response as? HTTPURLResponse, response.statusCode == 200 {
                    self?.updateSearchResults(data)
                    completion(self?.tracks, self?.errorMessage ?? "")
                    return
                } else if let response = response as? HTTPURLResponse {
                    self?.errorMessage += "HTTP \(response.statusCode)\n"
                }
                completion(nil, self?.errorMessage ?? "")
            }
            dataTask?.resume()
        }
    }

    private func updateSearchResults(_ data: Data) {
        var response: JSONDictionary?
        tracks.removeAll()
        do {
            response = try JSONSerialization.jsonObject(with: data, options: []) as? JSONDictionary
        } catch let parseError as NSError {
            errorMessage += "JSONSerialization error: \(parseError.localizedDescription)\n"
            return
        }
        guard let array = response!["results"] as? [Any] else {
            errorMessage += "Dictionary does not contain results key\n"
            return
        }
        for trackDictionary in array {
            if let trackDictionary = trackDictionary as? JSONDictionary,
                let previewURLString = trackDictionary["previewUrl"] as? String,
                let previewURL = URL(string: previewURLString),
                let name = trackDictionary["trackName"] as? String,
                let artist = trackDictionary["artistName"] as? String
            {
                tracks.append(Track(name: name, artist: artist, previewURL: previewURL))
            } else {
                errorMessage += "Problem parsing trackDictionary\n"
            }
        }
    }
}
