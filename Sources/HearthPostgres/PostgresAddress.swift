import NIOSSL
import PostgresNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a PostgreSQL server is and how to sign in, read from a connection URL as `psql` takes
/// them: `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=MODE`, or
/// `postgres://USER@/DATABASE?host=/run/postgresql` for a Unix socket (the socket file is
/// `.s.PGSQL.PORT` in that directory). `sslmode` is `disable`, `prefer` (the default),
/// `require` (encrypted, the server's certificate not checked) or `verify-full`.
package struct PostgresAddress: Sendable, Equatable {
    /// Why a URL names no PostgreSQL server Hearth can use.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case notAPostgresURL(String)
        case unsupportedSSLMode(String)
        case invalidPort(String)

        package var description: String {
            switch self {
            case .notAPostgresURL(let reason): "not a PostgreSQL URL (postgres://user:password@host:port/database): \(reason)"
            case .unsupportedSSLMode(let mode): "sslmode \(mode) is not one of disable, prefer, require, verify-full"
            case .invalidPort(let port): "port \(port) is not a port number"
            }
        }
    }

    /// How the connection is encrypted.
    package enum SSLMode: String, Sendable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    package var host: String
    package var port: Int
    /// The directory of the server's Unix socket, when it is reached that way.
    package var socketDirectory: String?
    package var username: String
    package var password: String?
    package var database: String?
    package var sslMode: SSLMode

    package init(url text: String) throws(Failure) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else { throw .notAPostgresURL("the scheme must be postgres or postgresql") }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        if let port = components.port {
            guard (1...65535).contains(port) else { throw .invalidPort(String(port)) }
        }
        self.port = components.port ?? 5432
        self.socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        self.host = components.percentEncodedHost.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? "localhost"
        guard let user = components.user, !user.isEmpty else { throw .notAPostgresURL("it names no user") }
        self.username = user
        self.password = components.password
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? nil : path
        let mode = query["sslmode"] ?? SSLMode.prefer.rawValue
        guard let sslMode = SSLMode(rawValue: mode) else { throw .unsupportedSSLMode(mode) }
        self.sslMode = sslMode
    }

    /// The client's configuration for this address.
    package var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketDirectory {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database)
        } else {
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// The configuration of a connection of its own (not from the pool) to this address.
    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketDirectory {
            return PostgresConnection.Configuration(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: username, password: password, database: database)
        }
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: unverifiedTLS))
        case .require: tls = .require(try NIOSSLContext(configuration: unverifiedTLS))
        case .verifyFull: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
    }

    /// Encryption without checking the server's certificate, as `prefer` and `require` mean.
    private var unverifiedTLS: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }

    private var tls: PostgresClient.Configuration.TLS {
        switch sslMode {
        case .disable: return .disable
        case .prefer: return .prefer(unverifiedTLS)
        case .require: return .require(unverifiedTLS)
        case .verifyFull: return .require(.makeClientConfiguration())
        }
    }
}
