import ArgumentParser
import Foundation
import HearthConsole
import Logging

/// `hearth admin:create EMAIL`: adds a console administrator, who signs in to the console of a
/// production server (or of one listening beyond loopback). The password is asked twice on a
/// terminal, without echo, or read as one line from standard input otherwise.
struct AdminCreate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin:create", abstract: "Create a console administrator (asks for the password).")

    @Argument(help: "The administrator's email, with which they sign in.")
    var email: String
    @OptionGroup var data: DataDirectoryOption

    func run() async throws {
        let password = try readPassword()
        let administrators = try await ConsoleAdministrators.open(dataDirectory: data.dataDir, logger: Logger(label: "hearth"))
        do {
            try await administrators.create(email: email, password: password, now: Int64(Date().timeIntervalSince1970))
        } catch let failure as ConsoleAdministrators.Failure {
            await administrators.close()
            throw ValidationError("Cannot create \(email): \(failure).")
        } catch {
            await administrators.close()
            throw error
        }
        await administrators.close()
        print("created console administrator \(email.lowercased())")
    }

    private func readPassword() throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = Swift.readLine(strippingNewline: true) else {
                throw ValidationError("No password on standard input.")
            }
            return line
        }
        let first = try TerminalPassword.read(prompt: "Password for \(email): ")
        let second = try TerminalPassword.read(prompt: "Again: ")
        guard first == second else { throw ValidationError("The passwords differ.") }
        return first
    }
}

/// Reads a line from the terminal with echo turned off, restoring the terminal afterwards.
enum TerminalPassword {
    static func read(prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = Swift.readLine(strippingNewline: true) else { throw ValidationError("No password entered.") }
        return line
    }
}
