import Foundation
import HostKit
import PluginAPI
import SampleContracts

/// The sample plugins at work: loads them from beside this program, uses each of their services
/// through its contract, as an application would, and shuts them down. (`host run` loads the same
/// plugins without knowing their contracts.)
@main
enum SampleTour {
    static func main() async {
        let sources = PluginSource.besideExecutable()
        guard !sources.isEmpty else {
            problem("no sample plugins beside this program; build them first with `swift build`")
            exit(1)
        }
        let host = PluginHost()
        let report = host.load(sources)
        for error in report.problems { problem(error.description) }
        print(report.loaded.map(\.summary).joined(separator: "\n"))
        print("started:    \(host.startedPlugins.joined(separator: ", "))\n")
        await tour(host.locator)
        let shutdown = host.shutdown()
        for entry in shutdown.problems { problem(entry.summary) }
        print("\n" + shutdown.text)
        if let journal = host.locator.getService(key: SampleKeys.journal) {
            print("journal:    \(journal.isOpen ? "still open" : "closed") after shutdown")
        }
        exit(report.hasProblems || !shutdown.problems.isEmpty ? 1 : 0)
    }

    /// Uses each sample service that was loaded.
    static func tour(_ locator: ServiceLocator) async {
        if let greeter = locator.getService(key: SampleKeys.greeter) {
            print("greeter:    \(greeter.greet("world"))")
        }
        if let greeting = try? locator.tryService(key: SampleKeys.greeting, params: "Ada") {
            print("greeting:   to \(greeting.recipient): \(greeting.text)")
        }
        if let first = locator.getService(key: SampleKeys.requestID),
           let second = locator.getService(key: SampleKeys.requestID) {
            print("request-id: \(first), then \(second)")
        }
        if let notebook = locator.getService(key: SampleKeys.notebook) {
            notebook.add("loaded \(locator.slots.count) slots")
            let again = locator.getService(key: SampleKeys.notebook)
            print("notebook:   \(notebook.all()) (same notebook while held: \(again === notebook))")
        }
        if let journal = locator.getService(key: SampleKeys.journal) {
            journal.write("the tour used the samples")
            print("journal:    \(journal.path) (\(journal.isOpen ? "open" : "closed"))")
        }
        if let sessions = locator.getService(key: SampleKeys.sessions) {
            switchUsers(sessions, locator)
        }
        if let archive = try? await locator.tryServiceAsync(key: SampleKeys.archive) {
            // Eight tasks at once still connect once: the async factory runs exactly once.
            let count = await withTaskGroup(of: Int.self) { group in
                for index in 1...8 {
                    group.addTask { await (try? await locator.tryServiceAsync(key: SampleKeys.archive))?.store("note \(index)") ?? 0 }
                }
                return await group.reduce(0) { max($0, $1) }
            }
            print("archive:    \(count) notes stored by 8 tasks, \(archive.connections) connection(s) made")
        }
    }

    /// Switches users and shows that each user has an account of their own, which comes back.
    static func switchUsers(_ sessions: ServiceSessionMediator<UserSession>, _ locator: ServiceLocator) {
        guard let guest = locator.getService(key: SampleKeys.account) else { return }
        sessions.updateSession(UserSession(user: "ada"))
        let ada = locator.getService(key: SampleKeys.account)
        sessions.updateSession(UserSession(user: guest.user))
        let back = locator.getService(key: SampleKeys.account)
        print("sessions:   \(guest.user) -> \(ada?.user ?? "?") -> \(back?.user ?? "?"): "
            + "same account as before: \(back === guest), activations \(back?.activations ?? 0)")
    }

    /// Writes a problem to standard error, one line.
    static func problem(_ text: String) {
        FileHandle.standardError.write(Data("sample-tour: \(text)\n".utf8))
    }
}
