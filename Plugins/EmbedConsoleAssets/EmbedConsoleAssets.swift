import Foundation
import PackagePlugin

/// Embeds the files under a target's `Assets` folder in its code (`ConsoleAssets.embedded`), so
/// that the console ships inside the `hearth` binary with no file beside it. Runs again whenever
/// an asset changes.
@main
struct EmbedConsoleAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let assets = target.directoryURL.appending(path: "Assets")
        let files = try FileManager.default.subpathsOfDirectory(atPath: assets.path).sorted().compactMap { name -> URL? in
            var isDirectory: ObjCBool = false
            let url = assets.appending(path: name)
            FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            return isDirectory.boolValue ? nil : url
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedConsoleAssets.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) console assets",
                executable: try context.tool(named: "hearth-embed-assets").url,
                arguments: [assets.path, output.path],
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
