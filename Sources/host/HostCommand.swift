import Foundation
import HostKit
import PluginAPI
import SampleContracts

/// Runs one command; returns the exit status.
struct HostCommand {
    let arguments: Arguments

    static let version = "0.1.0"
    /// The sample plugins `swift build` puts beside this executable.
    static let samplePlugins = ["ClockPlugin", "GreeterPlugin", "NotesPlugin", "AccountPlugin"]

    func run() async -> Int32 {
        let discovery = PluginDiscovery(allowUntrusted: arguments.allowUntrusted)
        switch arguments.command {
        case .inspect: return inspect(arguments.operand ?? "")
        case .probe: return PluginProbe.probe(arguments.operand ?? "", discovery: discovery)
        case .run, .list, .check, .resolve, .serve: break
        }
        let host = PluginHost(discovery: discovery)
        let report = host.load(sources(), probe: probe())
        for problem in report.problems { Output.problem(problem.description) }
        let status = await use(host, report)
        // Normal exit: the plugins' shutdown hooks run, in reverse start order.
        let shutdown = host.shutdown(timeout: arguments.shutdownTimeout)
        for entry in shutdown.problems { Output.problem(entry.summary) }
        if arguments.command == .run && !arguments.json {
            Output.line("\n" + shutdown.text)
            if let journal = host.locator.getService(key: SampleKeys.journal) {
                Output.line("journal:    \(journal.isOpen ? "still open" : "closed") after shutdown")
            }
        }
        return shutdown.problems.isEmpty ? status : 1
    }

    /// Does what the command asks with the loaded plugins; returns the exit status.
    private func use(_ host: PluginHost, _ report: LoadReport) async -> Int32 {
        switch arguments.command {
        case .check:
            // Problems went to stderr above; stdout gets what loaded and a count.
            Output.line(arguments.json ? report.json : (report.loaded.map(\.summary) + [
                "\(report.loaded.count) loaded, \(report.problems.count) problem(s)"]).joined(separator: "\n"))
        case .list:
            Output.line(arguments.json ? slotsJSON(host.locator) : slotTable(host.locator))
        case .resolve:
            return resolve(arguments.operand ?? "", in: host.locator)
        case .run:
            if arguments.json {
                Output.line(report.json)
            } else {
                Output.line((report.loaded.map(\.summary) + ["", slotTable(host.locator)]).joined(separator: "\n"))
                Output.line("\nstarted:    \(host.startedPlugins.joined(separator: ", "))")
                await exerciseSamples(host.locator)
            }
        case .serve:
            // A plugin whose shutdown failed on the signal makes the exit status 1, as after `run`.
            if await !serve(host, report) { return 1 }
        case .inspect, .probe: break
        }
        return report.hasProblems ? 1 : 0
    }

    /// Says it is serving once SIGINT and SIGTERM are caught, waits for one, then shuts the plugins
    /// down (before `run`'s own shutdown, which then has nothing left to do) and prints what happened.
    /// Returns false if a plugin's shutdown failed.
    private func serve(_ host: PluginHost, _ report: LoadReport) async -> Bool {
        let (signals, caught) = AsyncStream.makeStream(of: (Int32, ShutdownReport).self)
        let watch = ShutdownSignals(host: host, timeout: arguments.shutdownTimeout) { report, signal in
            caught.yield((signal, report))
            caught.finish()
        }
        // Only now: whoever started us may signal as soon as it reads this line.
        Output.line((report.loaded.map(\.summary)
            + ["serving \(host.startedPlugins.count) plugin(s) (pid \(getpid())); SIGINT or SIGTERM stops"])
            .joined(separator: "\n"))
        fflush(nil)  // stdout to a pipe or a file is buffered
        var iterator = signals.makeAsyncIterator()
        guard let (signal, shutdown) = await iterator.next() else { return true }
        withExtendedLifetime(watch) {}
        Output.line("signal \(signal): shutting down\n" + shutdown.text)
        for entry in shutdown.problems { Output.problem(entry.summary) }
        return shutdown.problems.isEmpty
    }

    /// With `--isolated`: this very program, as `host __probe FILE`.
    private func probe() -> PluginProbe? {
        guard arguments.isolated, let executable = Bundle.main.executablePath else { return nil }
        return PluginProbe(executable: executable,
                           arguments: ["__probe"] + (arguments.allowUntrusted ? ["--allow-untrusted"] : []),
                           timeout: arguments.probeTimeout)
    }

    /// `--plugins`, else `SWIFT_PLUGIN_PATH`, else the sample plugins beside this executable.
    private func sources() -> [PluginSource] {
        if !arguments.plugins.isEmpty {
            return arguments.plugins.map(PluginSource.path)
        }
        if let environment = PluginSource.environment() { return [environment] }
        let folder = Bundle.main.executableURL?.deletingLastPathComponent().path ?? "."
        return Self.samplePlugins.map { .file("\(folder)/lib\($0).so") }
    }

    private func inspect(_ path: String) -> Int32 {
        switch PluginHost.inspect(path, discovery: PluginDiscovery(allowUntrusted: arguments.allowUntrusted)) {
        case let .success(meta):
            if arguments.json {
                Output.line(encodeJSON(Descriptor(name: meta.name, version: meta.version, provides: meta.provides,
                                                  requires: meta.requires, abiVersion: String(PluginABI.version))))
            } else {
                Output.line("""
                    name:     \(meta.name)
                    version:  \(meta.version)
                    abi:      \(PluginABI.version)
                    provides: \(meta.provides.joined(separator: ", "))
                    requires: \(meta.requires.isEmpty ? "-" : meta.requires.joined(separator: ", "))
                    """)
            }
            return 0
        case let .failure(error):
            Output.problem(error.description)
            return 1
        }
    }

    private func resolve(_ key: String, in locator: ServiceLocator) -> Int32 {
        do {
            let service = try locator.tryAnyService(storeKey: key)
            if let info = locator.slotInfo(forKey: key) { Output.line(info.description) }
            Output.line(String(describing: service))
            return 0
        } catch {
            Output.problem("resolve '\(key)': \(error)")
            return 1
        }
    }

    private func slotTable(_ locator: ServiceLocator) -> String {
        Output.table(["KEY", "TYPE", "MODE", "PLUGIN"], locator.slots.map { slot in
            [slot.key, slot.paramsType.map { "(\($0)) -> \(slot.serviceType)" } ?? slot.serviceType,
             (slot.isAsync ? "async " : "") + slot.mode.rawValue, slot.origin ?? "-"]
        })
    }

    private func slotsJSON(_ locator: ServiceLocator) -> String {
        encodeJSON(["slots": locator.slots.map { slot in
            ["key": slot.key, "type": slot.serviceType, "params": slot.paramsType ?? "",
             "mode": slot.mode.rawValue, "async": String(slot.isAsync), "plugin": slot.origin ?? ""]
        }])
    }

    /// What `inspect --json` prints.
    private struct Descriptor: Encodable {
        let name: String
        let version: String
        let provides: [String]
        let requires: [String]
        let abiVersion: String
    }

    /// Uses each sample service that was loaded, the way an application would.
    private func exerciseSamples(_ locator: ServiceLocator) async {
        Output.line("")
        if let greeter = locator.getService(key: SampleKeys.greeter) {
            Output.line("greeter:    \(greeter.greet("world"))")
        }
        if let greeting = locator.getService(key: SampleKeys.greeting, params: "Ada") {
            Output.line("greeting:   to \(greeting.recipient): \(greeting.text)")
        }
        if let first = locator.getService(key: SampleKeys.requestID),
           let second = locator.getService(key: SampleKeys.requestID) {
            Output.line("request-id: \(first), then \(second)")
        }
        if let notebook = locator.getService(key: SampleKeys.notebook) {
            notebook.add("loaded \(locator.slots.count) slots")
            let again = locator.getService(key: SampleKeys.notebook)
            Output.line("notebook:   \(notebook.all()) (same notebook while held: \(again === notebook))")
        }
        if let journal = locator.getService(key: SampleKeys.journal) {
            journal.write("the host ran its samples")
            Output.line("journal:    \(journal.path) (\(journal.isOpen ? "open" : "closed"))")
        }
        if let sessions = locator.getService(key: SampleKeys.sessions) {
            exerciseSessions(sessions, locator)
        }
        if let archive = await locator.getServiceAsync(key: SampleKeys.archive) {
            // Eight tasks at once still connect once: the async factory runs exactly once.
            let count = await withTaskGroup(of: Int.self) { group in
                for index in 1...8 {
                    group.addTask { await locator.getServiceAsync(key: SampleKeys.archive)?.store("note \(index)") ?? 0 }
                }
                return await group.reduce(0) { max($0, $1) }
            }
            Output.line("archive:    \(count) notes stored by 8 tasks, \(archive.connections) connection(s) made")
        }
    }

    /// Switches users and shows that each user has an account of their own, which comes back.
    private func exerciseSessions(_ sessions: ServiceSessionMediator<UserSession>, _ locator: ServiceLocator) {
        guard let guest = locator.getService(key: SampleKeys.account) else { return }
        sessions.updateSession(UserSession(user: "ada"))
        let ada = locator.getService(key: SampleKeys.account)
        sessions.updateSession(UserSession(user: guest.user))
        let back = locator.getService(key: SampleKeys.account)
        Output.line("sessions:   \(guest.user) -> \(ada?.user ?? "?") -> \(back?.user ?? "?"): "
            + "same account as before: \(back === guest), activations \(back?.activations ?? 0)")
    }
}
