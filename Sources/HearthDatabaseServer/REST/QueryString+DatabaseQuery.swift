import HearthCore
import HearthEdge

extension QueryString {
    /// The database query that REST parameters such as `orderBy="$key"&limitToFirst=5` describe,
    /// or `nil` for a plain read; throws Firebase's error text when they are invalid.
    public static func databaseQuery(_ query: String) throws(InvalidQuery) -> QueryParams? {
        do {
            return try RESTQueryParser.parse(parameters(query), shallow: false)
        } catch {
            throw InvalidQuery(description: error.message)
        }
    }

    /// REST query parameters that describe no valid query.
    public struct InvalidQuery: Error, CustomStringConvertible {
        public let description: String
    }
}
