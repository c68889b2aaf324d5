internal import DynamicLoading
import Foundation
import Glibc
@_spi(HostKit) import PluginAPI

/// Loads each plugin in a child process before the host loads it, so a plugin that crashes, hangs or
/// exits while loading costs only the child: the host reports the signal, the timeout or the exit and
/// carries on.
///
/// A plugin is probed as the real load will meet it: first opened alone (`dlopen`, its header, its
/// descriptor) and, if it requires nothing, registered; a plugin that requires keys is probed again
/// once the load has planned its order, registered after the plugins that provide those keys (and
/// theirs), in the order the real load registers them. Start and shutdown hooks run in the host only.
///
/// The child is a program that calls ``PluginProbe/probe(_:discovery:base:)`` for the path it is
/// given (the `host` command does so for `host __probe FILE`). The child must end with a verdict,
/// written to its standard output behind a token only the parent and the child know: an exit without
/// one (a plugin that calls `exit`, whatever the status), a signal or a timeout is a failure. A plugin
/// the child refused cleanly is loaded by the host anyway, to report its exact error.
public struct PluginProbe: Sendable {
    /// The program to run, by absolute path.
    public var executable: String
    /// Arguments before the plugin's path.
    public var arguments: [String]
    /// How long one child may take before it is killed.
    public var timeout: Duration
    /// Variables added to the child's environment.
    public var environment: [String: String]

    /// The exit status of a child whose plugin failed cleanly (it printed the reason).
    static let cleanFailureStatus: Int32 = 3
    /// The variable that gives the child the token of its verdict.
    static let tokenVariable = "SWIFT_PLUGIN_PROBE_TOKEN"
    /// The variable that gives the child the plugins to register before the probed one (a JSON array
    /// of paths, in registration order).
    static let providersVariable = "SWIFT_PLUGIN_PROBE_PROVIDERS"
    /// The variable that gives the child the files the host's discovery checked already (a JSON array
    /// of candidates): the child opens them without walking their paths and reading their headers again.
    static let checkedVariable = "SWIFT_PLUGIN_PROBE_CHECKED"
    /// The variable that gives the child the folder of copies of its parent's load: the child makes
    /// its own inside it, so that it goes with the parent's, also when the plugin kills the child.
    static let folderVariable = "SWIFT_PLUGIN_PROBE_FOLDER"

    /// What the child did with the probed plugin.
    enum Verdict: String {
        /// Opened and registered it.
        case registered
        /// Opened it, but could not register it: a key it requires was not there.
        case opened
        /// Refused it cleanly (the host loads it anyway, to report the exact error).
        case refused
    }

    /// A probe that runs `executable arguments... PATH` for each plugin.
    public init(executable: String, arguments: [String], timeout: Duration = .seconds(10),
                environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
        self.environment = environment
    }

    /// Runs the child for the file discovery found in `candidate`, for a load whose copies are in `folder`.
    func check(_ candidate: PluginCandidate, folder: String?) -> Result<Verdict, PluginLoadError> {
        check(candidate.realPath, after: [], checked: [candidate], folder: folder)
    }

    /// Runs the child for `plugin`, after registering `providers` (in registration order), for a
    /// load whose copies are in `folder`.
    func check(_ plugin: LoadedPlugin, after providers: [LoadedPlugin], folder: String?) -> Result<Verdict, PluginLoadError> {
        check(plugin.path, after: providers.map(\.path), checked: ([plugin] + providers).compactMap(\.candidate), folder: folder)
    }

    /// Runs the child for the plugin at `path` (a real path), after registering `providers` (real
    /// paths, in registration order), handing it the files discovery `checked` and the load's
    /// `folder` of copies; returns its verdict, or why it crashed, hung or exited without one.
    private func check(_ path: String, after providers: [String], checked: [PluginCandidate],
                       folder: String?) -> Result<Verdict, PluginLoadError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + [path]
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // A crashing child need not spend seconds printing a backtrace nobody reads.
        variables["SWIFT_BACKTRACE"] = "enable=no"
        let token = UUID().uuidString
        variables[Self.tokenVariable] = token
        variables[Self.providersVariable] = providers.isEmpty ? nil
            : (try? JSONEncoder().encode(providers)).map { String(decoding: $0, as: UTF8.self) }
        variables[Self.checkedVariable] = (try? JSONEncoder().encode(checked)).map { String(decoding: $0, as: UTF8.self) }
        variables[Self.folderVariable] = folder
        process.environment = variables
        // A file, not a pipe: a child that writes much must not block on a full pipe.
        let verdictFile = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-probe-\(token)")
        guard FileManager.default.createFile(atPath: verdictFile.path, contents: nil),
              let output = try? FileHandle(forWritingTo: verdictFile) else {
            return .failure(.probeFailed(path: path, reason: "could not create \(verdictFile.path)"))
        }
        defer {
            try? output.close()
            try? FileManager.default.removeItem(at: verdictFile)
        }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(.probeFailed(path: path, reason: "could not start \(executable): \(error)"))
        }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        if process.isRunning {
            // It may have ended since `isRunning` said otherwise: then there is nothing to kill.
            try? Posix.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return .failure(.probeFailed(path: path, reason: "did not finish loading within \(timeout), killed"))
        }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            let name = Posix.signalName(signal)
            return .failure(.probeFailed(path: path, reason: "crashed while loading: signal \(signal) (\(name))"))
        }
        let status = process.terminationStatus
        let said = (try? String(contentsOf: verdictFile, encoding: .utf8)) ?? ""
        let verdict = [Verdict.registered, .opened, .refused].first { said.contains("\(token) \($0.rawValue)\n") }
        guard let verdict else {
            return .failure(.probeFailed(path: path, reason: "the probe exited with status \(status) without a verdict "
                                         + "(did the plugin call exit?)"))
        }
        guard status == (verdict == .refused ? Self.cleanFailureStatus : 0) else {
            return .failure(.probeFailed(path: path, reason: "the probe exited with status \(status) after its verdict"))
        }
        return .success(verdict)
    }

    /// What the child runs: the phases of `LoadPipeline` that open and register a plugin, for the
    /// plugin at `path` into a clone of `base`, after the providers the parent named
    /// (`check(_:after:)`); writes its verdict and returns the exit status: 0 if the plugin
    /// registered or opened, 3 (with the reason on stderr) if it was refused. A host whose plugins
    /// require services of its own base locator passes that same base here, or those plugins cannot
    /// register in the child.
    public static func probe(_ path: String, discovery: PluginDiscovery = PluginDiscovery(),
                             base: ServiceLocator = ServiceLocator()) -> Int32 {
        // Out of the environment before the plugin runs: `getenv` in the plugin finds nothing. This
        // keeps a careless exit from passing; a plugin set on forging a verdict can still read the
        // process's initial environment (/proc/self/environ), as it can do anything the host can.
        let environment = ProcessInfo.processInfo.environment
        let token = environment[tokenVariable] ?? ""
        let providers = environment[providersVariable].flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        let checked = environment[checkedVariable].flatMap { try? JSONDecoder().decode([PluginCandidate].self, from: Data($0.utf8)) } ?? []
        let folder = environment[folderVariable]
        for variable in [tokenVariable, providersVariable, checkedVariable, folderVariable] {
            Posix.removeEnvironment(variable)
        }
        // A folder of its own inside its parent's load's: removed with it, also when the plugin kills
        // this child.
        var discovery = discovery
        if let folder, FileStatus(folder)?.isDirectory == true { discovery.shadowFolder = folder }
        let pipeline = LoadPipeline(discovery: discovery)
        defer { pipeline.finish() }
        let checkedFiles = Dictionary(checked.map { ($0.realPath, $0) }) { first, _ in first }
        // A file the parent's discovery checked is opened as it was checked (its copy); another, or
        // one whose copy went with an earlier load (a provider loaded before), is discovered here.
        let open = { (path: String) in
            let checked = checkedFiles[path].flatMap { FileStatus($0.image) == nil ? nil : $0 }
            return (checked.map { .success($0) } ?? pipeline.discover(file: path)).flatMap(pipeline.openUnprobed)
        }
        let verdict: Verdict
        switch open(path) {
        case let .failure(error):
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            verdict = .refused
        case let .success(plugin):
            verdict = register(plugin, after: providers.map(open), with: pipeline, base: base)
        }
        FileHandle.standardOutput.write(Data("\(token) \(verdict.rawValue)\n".utf8))
        return verdict == .refused ? cleanFailureStatus : 0
    }

    /// Registers the `providers` that opened, in their order, then `plugin`, into a clone of `base`,
    /// as a load does.
    private static func register(_ plugin: LoadedPlugin, after providers: [Result<LoadedPlugin, PluginLoadError>],
                                 with pipeline: LoadPipeline, base: ServiceLocator) -> Verdict {
        guard let locator = try? base.clone() else {
            FileHandle.standardError.write(Data("the base locator refuses to be cloned\n".utf8))
            return .refused
        }
        let services = ServiceResolver(source: ServiceSource(locator))
        // A provider that fails here failed the same way in its own probe: the plugin's requirement
        // is then unmet, as in the real load.
        for case let .success(provider) in providers {
            _ = pipeline.registerUnprobed(provider, into: locator, services: services)
        }
        let unmet = plugin.metadata.requiredStoreKeys.contains { locator.slotInfo(forKey: $0) == nil }
        if unmet { return .opened }
        if case let .failure(error) = pipeline.registerUnprobed(plugin, into: locator, services: services) {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return .refused
        }
        awaitAsyncAtOneFactories(of: plugin, in: locator)
        return .registered
    }

    /// Waits until every `atOne` async factory of `plugin` has finished: a registration started
    /// them, and the verdict covers what the real load runs at registration, also what they do a
    /// moment later (crash, say). Bounded by the parent's probe timeout, which kills this child.
    private static func awaitAsyncAtOneFactories(of plugin: LoadedPlugin, in locator: ServiceLocator) {
        let keys = plugin.metadata.providedStoreKeys.filter { key in
            locator.slotInfo(forKey: key).map { $0.isAsync && $0.mode == .atOne } ?? false
        }
        guard !keys.isEmpty else { return }
        _ = HookRunner.run(name: "probe atOne factories", timeout: .seconds(86_400)) {
            // A failure is the slot's outcome, kept as the real load keeps it: not the probe's verdict.
            for key in keys { _ = try? await locator.anyService(storeKey: key) }
        }
    }
}

extension PluginProbe {
    /// Probes the registration of `plugin` in a child, after the plugins among `registered` (in their
    /// registration order) that provide its requirements, and theirs; returns why it failed, or nil.
    func checkRegistration(of plugin: LoadedPlugin, after registered: [LoadedPlugin], folder: String?) -> PluginLoadError? {
        var providerOf: [String: Int] = [:]
        for (index, candidate) in registered.enumerated() {
            for key in candidate.metadata.providedStoreKeys { providerOf[key] = index }
        }
        var needed: Set<Int> = []
        var keys = plugin.metadata.requiredStoreKeys
        while let key = keys.popLast() {
            guard let index = providerOf[key], needed.insert(index).inserted else { continue }
            keys += registered[index].metadata.requiredStoreKeys
        }
        switch check(plugin, after: needed.sorted().map { registered[$0] }, folder: folder) {
        case let .failure(failure): return failure
        // Refused in the child without a crash: the registration here reports the exact error.
        case .success(.registered), .success(.refused): return nil
        case .success(.opened):
            return .probeFailed(path: plugin.path, reason: "the probe could not meet its requirements "
                                + "(services of the host's own base locator? give the probe child the same base)")
        }
    }
}
