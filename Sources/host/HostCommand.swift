import Foundation
import HostKit
@_spi(HostKit) import PluginAPI

/// Runs one command; returns the exit status.
struct HostCommand {
    let arguments: Arguments

    static let version = "0.1.0"

    func run() async -> Int32 {
        let discovery = arguments.discovery
        switch arguments.command {
        case .inspect: return inspect(arguments.operand ?? "")
        case .probe: return PluginProbe.probe(arguments.operand ?? "", discovery: discovery, settings: arguments.settings)
        case .servePlugin: return PluginChild.serve(discovery: discovery)
        case .new: return arguments.new.map { NewCommand(arguments: $0).run() } ?? 2
        case .run, .list, .check, .resolve, .serve: break
        }
        let sources = sources()
        guard !sources.isEmpty else {
            Output.problem("no plugins: no --plugins, no SWIFT_PLUGIN_PATH and no lib*Plugin.so beside the host"
                + " (`swift build` builds the sample plugins there)")
            return 1
        }
        // A crash, restart or withdrawal of a plugin's process is told on stderr (PluginHost's default).
        let processes = arguments.ownProcess.processes(childArguments: arguments.discoveryOptions)
        // Each plugin's own log, on stderr as the host's other lines, with the plugin's name and version.
        let logs = PluginLogs.standardError(prefix: "host: ", level: arguments.logLevel, levels: arguments.pluginLogLevels)
        // Each plugin's own settings, from `--config FILE` (read again at each SIGHUP's reload).
        let host = PluginHost(discovery: discovery, startTimeout: arguments.startTimeout, processes: processes, logs: logs,
                              settings: arguments.settings)
        // Caught from before the load: a signal while plugins start stops the starting, and every
        // plugin whose start returned is shut down. `serve` waits for one; other commands end on it.
        let (signals, caught) = AsyncStream.makeStream(of: (Int32, ShutdownReport).self)
        let serving = arguments.command == .serve
        let watch = ShutdownSignals(host: host, timeout: arguments.shutdownTimeout) { report, signal in
            guard serving else {
                Output.lines(["signal \(signal): shutting down"] + report.lines)
                for entry in report.problems { Output.problem(entry.summary) }
                exit(128 + signal)
            }
            caught.yield((signal, report))
            caught.finish()
        }
        // `serve` reloads on SIGHUP, caught from before the load too: its default action ends the process.
        let reloads = serving ? ReloadSignals(host: host, probe: probe()) { report, signal in
            Self.printReload(report, signal: signal)
        } : nil
        defer { withExtendedLifetime((watch, reloads)) {} }
        let report = host.load(sources, probe: probe(), start: startsPlugins)
        for problem in report.problems { Output.problem(problem) }
        let nothingFound = Self.foundNothing(report)
        if nothingFound {
            Output.problem("no plugin found in \(sources.map(Self.describe).joined(separator: ", "))")
        }
        if serving && arguments.strict && report.hasProblems {
            // Before a single request: the plugins that started are shut down, nothing is served.
            Output.problem("not serving: the load had \(report.problems.count) problem(s), and --strict refuses that")
            return refuseToServe(host)
        }
        let used = await use(host, report, signals: signals)
        // Found nothing: a failure for every command but `serve`, which serves on, waiting for a SIGHUP.
        let status = nothingFound && !serving ? 1 : used
        // Normal exit: the plugins' shutdown hooks run, in reverse start order.
        let shutdown = host.shutdown(timeout: arguments.shutdownTimeout)
        for entry in shutdown.problems { Output.problem(entry.summary) }
        if arguments.command == .run && !arguments.json {
            Output.lines([""] + shutdown.lines)
        }
        return shutdown.problems.isEmpty ? status : 1
    }

    /// Whether this command runs the plugins' start (and shutdown) hooks: `list` and `check` only
    /// with `--start`, so that looking has no side effects.
    private var startsPlugins: Bool {
        arguments.command == .list || arguments.command == .check ? arguments.start : true
    }

    /// Whether the load found nothing to load: no plugin nor library, and no problem but paths that
    /// are not there (an empty folder, a missing one).
    private static func foundNothing(_ report: LoadReport) -> Bool {
        report.loaded.isEmpty && report.libraries.isEmpty && report.problems.allSatisfy {
            if case .notFound = $0 { true } else { false }
        }
    }

    /// A source as the operator gave it.
    private static func describe(_ source: PluginSource) -> String {
        switch source {
        case let .file(path), let .directory(path): path
        case let .searchPath(value): "SWIFT_PLUGIN_PATH '\(value)'"
        }
    }

    /// `serve --strict` after a load with problems: the plugins that started are shut down, and
    /// the exit status is 1.
    private func refuseToServe(_ host: PluginHost) -> Int32 {
        let shutdown = host.shutdown(timeout: arguments.shutdownTimeout)
        Output.lines(shutdown.lines)
        for entry in shutdown.problems { Output.problem(entry.summary) }
        return 1
    }

    /// Does what the command asks with the loaded plugins; returns the exit status.
    private func use(_ host: PluginHost, _ report: LoadReport,
                     signals: AsyncStream<(Int32, ShutdownReport)>) async -> Int32 {
        switch arguments.command {
        case .check:
            // Problems went to stderr above; stdout gets what loaded and a count.
            if arguments.json {
                Output.json(report.json)
            } else if !Self.foundNothing(report) {
                Output.lines((report.loaded + report.libraries).map(\.summary)
                    + ["\(report.loaded.count) loaded, \(report.problems.count) problem(s)"])
            }
        case .list:
            // Found nothing: the problem said so, and an empty table under it would say no more.
            if arguments.json {
                Output.json(encodeJSON(ListJSON(slots: slots(host.locator, report), plugins: report.jsonPlugins)))
            } else if !Self.foundNothing(report) {
                Output.lines(slotTable(host.locator, report) + [""] + grantTable(report))
            }
        case .resolve:
            // A load with problems is exit 1 here too, as everywhere; the service is still gotten.
            let resolved = await resolve(arguments.operand ?? "", in: host.locator)
            return resolved && !report.hasProblems ? 0 : 1
        case .run:
            let (services, succeeded) = await getEachService(host.locator)
            if arguments.json {
                Output.json(encodeJSON(RunJSON(plugins: report.jsonPlugins, slots: slots(host.locator, report),
                                               started: host.startedPlugins, services: services)))
            } else {
                Output.lines((report.loaded + report.libraries).map(\.summary) + [""] + slotTable(host.locator, report))
                Output.lines(["", "started:    \(host.startedPlugins.joined(separator: ", "))", ""])
                Output.lines(Output.table(["KEY", "SERVICE"], services.map { [$0.key, $0.service ?? $0.notGotten ?? ""] }))
            }
            if !succeeded { return 1 }
        case .serve:
            // The exit status says how the stop went: the load's problems were said long before
            // (and `--strict` refuses them). A plugin whose shutdown failed makes it 1.
            return await serve(host, report, signals: signals) ? 0 : 1
        case .inspect, .probe, .servePlugin, .new: break
        }
        return report.hasProblems ? 1 : 0
    }

    /// Says it is serving (SIGHUP, SIGINT and SIGTERM are caught since before the load; each SIGHUP
    /// reloads the plugins meanwhile), waits for SIGINT or SIGTERM, whose watcher shut the plugins
    /// down (before `run`'s own shutdown, which then has nothing left to do), and prints what
    /// happened. Returns false if a plugin's shutdown failed.
    private func serve(_ host: PluginHost, _ report: LoadReport, signals: AsyncStream<(Int32, ShutdownReport)>) async -> Bool {
        Output.lines(report.loaded.map(\.summary)
            + ["serving \(host.startedPlugins.count) plugin(s) (pid \(getpid())); SIGHUP reloads; SIGINT or SIGTERM stops"])
        fflush(nil)  // stdout to a pipe or a file is buffered
        var iterator = signals.makeAsyncIterator()
        guard let (signal, shutdown) = await iterator.next() else { return true }
        Output.lines(["signal \(signal): shutting down"] + shutdown.lines)
        for entry in shutdown.problems { Output.problem(entry.summary) }
        return shutdown.problems.isEmpty
    }

    /// A reload's report on stdout under a line that names its signal, at once (stdout may be a pipe);
    /// what it refused, and the hooks that failed, on stderr as the load's problems are.
    private static func printReload(_ report: ReloadReport, signal: Int32) {
        Output.lines(["reload (signal \(signal)):"] + report.lines)
        for entry in report.entries {
            if let error = entry.error { Output.problem(entry.summary, refusal: error) }
        }
        for entry in report.stopped.problems { Output.problem(entry.summary) }
        fflush(nil)
    }

    /// With `--isolated`: this very program, as `host __probe FILE`.
    private func probe() -> PluginProbe? {
        guard arguments.isolated, let executable = Bundle.main.executablePath else { return nil }
        // The probe registers each plugin with the settings the host will give it (its child reads the same file).
        return PluginProbe(executable: executable,
                           arguments: ["__probe"] + arguments.discoveryOptions + (arguments.settings.map { ["--config", $0.path] } ?? []),
                           timeout: arguments.probeTimeout)
    }

    /// The default sources, then those of `--also`.
    private func sources() -> [PluginSource] {
        defaultSources() + arguments.also.map(PluginSource.path)
    }

    /// `--plugins`, else `SWIFT_PLUGIN_PATH`, else the plugins beside this executable (after
    /// `swift build`, the sample plugins).
    private func defaultSources() -> [PluginSource] {
        if !arguments.plugins.isEmpty {
            return arguments.plugins.map(PluginSource.path)
        }
        if let environment = PluginSource.environment() { return [environment] }
        return PluginSource.besideExecutable()
    }

    private func inspect(_ path: String) -> Int32 {
        let inspection = PluginHost.inspect(path, discovery: arguments.discovery, probe: probe())
        if let plugin = inspection.plugin {
            let meta = plugin.metadata
            let libraries = plugin.libraries.map { "\($0.name) \($0)" }
            if arguments.json {
                Output.json(encodeJSON(Descriptor(name: meta.name, version: meta.version, provides: meta.provides.map(\.storeKey),
                                                  requires: meta.requires.map(\.storeKey), builtAgainst: libraries,
                                                  loadable: inspection.refusal == nil, refusal: inspection.refusal?.description)))
            } else {
                Output.lines([
                    "name:     \(meta.name)",
                    "version:  \(meta.version)",
                    "built against: \(libraries.joined(separator: ", "))",
                    "provides: \(meta.provides.map(\.storeKey).joined(separator: ", "))",
                    "requires: \(meta.requires.isEmpty ? "-" : meta.requires.map(\.storeKey).joined(separator: ", "))",
                    // As `--json`'s `loadable`: what the operator asked `inspect` for.
                    inspection.refusal == nil ? "loadable: yes, this host would load it"
                        : "loadable: no, this host would refuse it (see below)",
                ])
            }
        }
        guard let refusal = inspection.refusal else { return 0 }
        Output.problem(refusal)
        return 1
    }

    /// Gets the service for `key`, made from `--param` if the slot takes parameters and awaited if it
    /// is async, and prints it; returns false if it could not (the reason goes to stderr).
    private func resolve(_ key: String, in locator: ServiceLocator) async -> Bool {
        let info = locator.slotInfo(forKey: key)
        /// Says why there is no service: on stderr, and with `--json` as an object on stdout too.
        func failed(_ reason: String) -> Bool {
            Output.problem("resolve '\(key)': \(reason)")
            if arguments.json { Output.json(encodeJSON(ResolveFailure(key: key, param: arguments.param, error: reason))) }
            return false
        }
        let service: Any
        do {
            if let paramsType = info?.paramsType, let text = arguments.param {
                guard let params = ParameterText.value(text, as: paramsType) else {
                    return failed("cannot make \(paramsType) from '\(text)' "
                                  + "(the host makes String, integer, floating point and Bool parameters)")
                }
                service = try await locator.anyService(storeKey: key, params: params)
            } else if let paramsType = info?.paramsType, !paramsType.hasPrefix("Swift.Optional<") {
                return failed("the slot takes parameters (\(paramsType)): pass --param VALUE")
            } else if arguments.param != nil, info != nil {
                // (No slot at all: the get below says there is no service for the key.)
                return failed("the slot takes no parameters, and --param was given")
            } else {
                service = try await locator.anyService(storeKey: key)
            }
        } catch {
            return failed("\(error)")
        }
        if arguments.json {
            Output.json(encodeJSON(Resolved(key: key, type: info?.serviceType, params: info?.paramsType,
                                            param: arguments.param, mode: info?.mode.rawValue, async: info?.isAsync ?? false,
                                            plugin: info?.origin, service: String(describing: service))))
        } else {
            if let info { Output.line(info.description) }
            Output.line(String(describing: service))
        }
        return true
    }

    /// Gets the service of every slot that needs neither `await` nor parameters, knowing nothing of
    /// its type; the others are listed as not gotten, with why. Also returns false if a get failed
    /// (the reason goes to stderr).
    private func getEachService(_ locator: ServiceLocator) async -> (services: [Gotten], succeeded: Bool) {
        var succeeded = true
        var rows: [Gotten] = []
        for slot in locator.slots {
            if slot.isAsync {
                rows.append(Gotten(key: slot.key, service: nil, notGotten: "not gotten: async"))
            } else if let params = slot.paramsType {
                rows.append(Gotten(key: slot.key, service: nil, notGotten: "not gotten: needs (\(params))"))
            } else {
                do {
                    let service = String(describing: try await locator.anyService(storeKey: slot.key))
                    rows.append(Gotten(key: slot.key, service: service, notGotten: nil))
                } catch {
                    Output.problem("\(error)")
                    succeeded = false
                    rows.append(Gotten(key: slot.key, service: nil, notGotten: "failed"))
                }
            }
        }
        return (rows, succeeded)
    }

    /// The slots, with the process each one's service lives in: `host`, or the process of a plugin
    /// in one of its own.
    private func slotTable(_ locator: ServiceLocator, _ report: LoadReport) -> [String] {
        let servers = Self.servers(report)
        return Output.table(["KEY", "TYPE", "MODE", "PLUGIN", "PROCESS"], locator.slots.map { slot in
            [slot.key, slot.paramsType.map { "(\($0)) -> \(slot.serviceType)" } ?? slot.serviceType,
             (slot.isAsync ? "async " : "") + slot.mode.rawValue, slot.origin ?? "-",
             slot.origin.flatMap { servers[$0] } ?? "host"]
        })
    }

    /// Each loaded plugin and the keys what it is lent may get: those it requires and its own.
    private func grantTable(_ report: LoadReport) -> [String] {
        Output.table(["PLUGIN", "MAY GET"], report.loaded.compactMap(\.metadata).map { metadata in
            [metadata.name, metadata.grantedStoreKeys.joined(separator: ", ")]
        })
    }

    private func slots(_ locator: ServiceLocator, _ report: LoadReport) -> [Slot] {
        let servers = Self.servers(report)
        return locator.slots.map { slot in
            Slot(key: slot.key, type: slot.serviceType, params: slot.paramsType, mode: slot.mode.rawValue,
                 async: slot.isAsync, plugin: slot.origin, servedBy: slot.origin.flatMap { servers[$0] })
        }
    }

    /// The process serving each plugin of `report` placed in a process of its own, by plugin name.
    private static func servers(_ report: LoadReport) -> [String: String] {
        let pairs = report.loaded.compactMap { entry in
            entry.metadata.flatMap { metadata in entry.servedBy.map { (metadata.name, $0) } }
        }
        return Dictionary(pairs) { first, _ in first }
    }

    /// A slot in `list --json`: absent fields are null, a flag is a JSON boolean.
    private struct Slot: JSONRecord {
        let key: String
        let type: String
        let params: String?
        let mode: String
        let async: Bool
        let plugin: String?
        /// The process of a plugin in one of its own; null for a service in the host's.
        let servedBy: String?
        var fields: [(name: String, value: (any Encodable)?)] {
            [("key", key), ("type", type), ("params", params), ("mode", mode), ("async", async), ("plugin", plugin),
             ("servedBy", servedBy)]
        }
    }

    /// One slot's service as `run` got it: its description, or why it was not gotten (null otherwise).
    private struct Gotten: JSONRecord {
        let key: String
        let service: String?
        let notGotten: String?
        var fields: [(name: String, value: (any Encodable)?)] {
            [("key", key), ("service", service), ("notGotten", notGotten)]
        }
    }

    /// What `run --json` prints: the load's files (as `check --json`), the slots (as `list --json`),
    /// the plugins started in start order, and each service `run` got.
    /// What `list --json` prints: the slots, and each plugin with its grants.
    private struct ListJSON: Encodable {
        let slots: [Slot]
        let plugins: [LoadReport.JSONPlugin]
    }

    private struct RunJSON: Encodable {
        let plugins: [LoadReport.JSONPlugin]
        let slots: [Slot]
        let started: [String]
        let services: [Gotten]
    }

    /// What `resolve --json` prints: every field, null where there is nothing to say.
    private struct Resolved: JSONRecord {
        let key: String
        let type: String?
        /// The type of the slot's parameters.
        let params: String?
        /// The `--param` given.
        let param: String?
        let mode: String?
        let async: Bool
        let plugin: String?
        let service: String
        var fields: [(name: String, value: (any Encodable)?)] {
            [("key", key), ("type", type), ("params", params), ("param", param), ("mode", mode), ("async", async),
             ("plugin", plugin), ("service", service)]
        }
    }

    /// What `resolve --json` prints when there is no service: the key, the `--param` given, and why.
    private struct ResolveFailure: JSONRecord {
        let key: String
        let param: String?
        let error: String
        var fields: [(name: String, value: (any Encodable)?)] {
            [("key", key), ("param", param), ("error", error)]
        }
    }

    /// What `inspect --json` prints.
    private struct Descriptor: Encodable {
        let name: String
        let version: String
        let provides: [String]
        let requires: [String]
        /// The libraries the plugin was compiled against, as `PluginAPI 4.0.0`.
        let builtAgainst: [String]
        /// Whether this host would load it, and if not, why.
        let loadable: Bool
        let refusal: String?
    }
}
