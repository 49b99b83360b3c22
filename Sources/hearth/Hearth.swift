import ArgumentParser

/// The `hearth` command line.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "A self-hosted backend that speaks Firebase's protocols.",
        subcommands: [
            Serve.self, Backup.self, Restore.self, RulesCheck.self, RulesTest.self, StorageRulesTest.self, DatabaseCreate.self,
            DatabaseList.self, DatabaseDelete.self,
            DatabaseImport.self, DatabaseExport.self, DatabaseSecret.self,
            AuthImport.self, AuthExport.self, AuthHashConfig.self, AuthServiceAccount.self, AdminCreate.self, Migrate.self,
            AdsList.self, AdsCreate.self, AdsUpdate.self, AdsDelete.self, AdsReport.self, AdsDecide.self,
        ],
        defaultSubcommand: Serve.self)
}
