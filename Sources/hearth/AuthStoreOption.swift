import ArgumentParser
import Foundation
import HearthAuthServer
import HearthPostgres

/// Where the commands that manage Authentication's credentials find its store: the data
/// directory, or the PostgreSQL database a cluster shares (`--postgres` or `HEARTH_POSTGRES_URL`,
/// as `hearth serve` takes it).
struct AuthStoreOption: ParsableArguments {
    @OptionGroup var data: DataDirectoryOption

    @Option(help: "The PostgreSQL URL the cluster's nodes share (as hearth serve --postgres); HEARTH_POSTGRES_URL otherwise.")
    var postgres: String?

    var location: AuthStoreLocation {
        get throws {
            let url = postgres ?? ProcessInfo.processInfo.environment["HEARTH_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
            guard let url else { return .dataDirectory(data.dataDir) }
            do {
                return .postgres(try PostgresAddress(url: url))
            } catch {
                throw ValidationError("--postgres: \(error)")
            }
        }
    }
}
