import Foundation
import HostKit

/// Runs one command; returns the exit status.
struct HostCommand {
    let arguments: Arguments

    static let version = "0.1.0"

    func run() async -> Int32 {
        let discovery = arguments.discovery
        switch arguments.command {
        case .inspect: return inspect(arguments.operand ?? "")
        case .probe: return PluginProbe.probe(arguments.operand ?? "", discovery: discovery, settings: arguments.settings)
        // main.swift serves a plugin's process before any thread starts.
        case .servePlugin: return 2
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
        // What the settings file grants plugins' sandboxes, read once: a process's sandbox is fixed when it starts.
        let grants: [String: SandboxGrant]
        do {
            grants = try arguments.settings?.sandboxGrants() ?? [:]
        } catch {
            Output.problem("\(error)")
            return 2
        }
        // With a settings file, its `placement` may move a plugin into a process of its own at a reload.
        let processes = arguments.ownProcess.processes(childArguments: arguments.discoveryOptions, grants: grants,
                                                       placeable: arguments.settings != nil)
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
    static func foundNothing(_ report: LoadReport) -> Bool {
        // A versioned library no plugin links is no plugin found.
        report.loaded.isEmpty && report.libraries.allSatisfy { $0.unlinkedLibrary != nil } && report.problems.allSatisfy {
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

    /// Does what the command asks with the loaded plugins; returns the exit status. Each command's
    /// own code is in a file of its own (`HostCommand+List.swift` for `list`, and so on).
    private func use(_ host: PluginHost, _ report: LoadReport,
                     signals: AsyncStream<(Int32, ShutdownReport)>) async -> Int32 {
        switch arguments.command {
        case .check: check(report)
        case .list: list(host, report)
        case .resolve:
            // A load with problems is exit 1 here too, as everywhere; the service is still gotten.
            let resolved = await resolve(arguments.operand ?? "", in: host.locator)
            return resolved && !report.hasProblems ? 0 : 1
        case .run:
            guard await run(host, report) else { return 1 }
        case .serve:
            // The exit status says how the stop went: the load's problems were said long before
            // (and `--strict` refuses them). A plugin whose shutdown failed makes it 1.
            return await serve(host, report, signals: signals) ? 0 : 1
        case .inspect, .probe, .servePlugin, .new: break
        }
        return report.hasProblems ? 1 : 0
    }

    /// With `--isolated`: this very program, as `host __probe FILE`.
    func probe() -> PluginProbe? {
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
}
