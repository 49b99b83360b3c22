import HearthDatabaseServer
import HearthPostgres
import Testing

@Suite struct PostgresAddressTests {
    @Test func readsEveryPartOfAURL() throws {
        let address = try PostgresAddress(url: "postgres://hearth:s%40cret@db.example.com:6543/app?sslmode=require")
        #expect(address.host == "db.example.com")
        #expect(address.port == 6543)
        #expect(address.username == "hearth")
        #expect(address.password == "s@cret")
        #expect(address.database == "app")
        #expect(address.sslMode == .require)
        #expect(address.socketDirectory == nil)
    }

    @Test func defaultsToPortFiveFourThreeTwoAndPreferredEncryption() throws {
        let address = try PostgresAddress(url: "postgresql://hearth@localhost")
        #expect(address.port == 5432)
        #expect(address.sslMode == .prefer)
        #expect(address.database == nil)
        #expect(address.password == nil)
    }

    @Test func readsAUnixSocketDirectory() throws {
        let address = try PostgresAddress(url: "postgres://postgres@/hearth?host=/run/postgresql")
        #expect(address.socketDirectory == "/run/postgresql")
        #expect(address.database == "hearth")
    }

    @Test(arguments: [
        ("mysql://root@localhost/db", PostgresAddress.Failure.notAPostgresURL("the scheme must be postgres or postgresql")),
        ("postgres://localhost/db", .notAPostgresURL("it names no user")),
        ("postgres://u@localhost/db?sslmode=allow", .unsupportedSSLMode("allow")),
        ("postgres://u@localhost:70000/db", .invalidPort("70000")),
        ("not a url", .notAPostgresURL("the scheme must be postgres or postgresql")),
    ])
    func refusesWhatNamesNoUsableServer(url: String, failure: PostgresAddress.Failure) {
        #expect(throws: failure) { try PostgresAddress(url: url) }
    }
}
