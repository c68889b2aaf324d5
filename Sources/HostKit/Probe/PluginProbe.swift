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
/// The child is a program that calls ``PluginProbe/probe(_:discovery:base:settings:)`` for the path it is
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
}

extension PluginProbe {
    /// Probes the registration of `plugin` in a child, after the plugins among `registered` (in their
    /// registration order) that provide its requirements, and theirs; returns why it failed, or nil.
    ///
    /// A provider served from a process of its own is never named to the child: the child would open
    /// it here, outside its sandbox, with the host's rights. A plugin that requires one is probed
    /// without it, and "opened" (its requirement unmet there) is then a pass: its opening was probed,
    /// its registration runs first in the host.
    func checkRegistration(of plugin: LoadedPlugin, after registered: [LoadedPlugin], folder: String?) -> PluginLoadError? {
        var providerOf: [String: Int] = [:]
        for (index, candidate) in registered.enumerated() {
            for key in candidate.metadata.providedStoreKeys { providerOf[key] = index }
        }
        var needed: Set<Int> = []
        var servedElsewhere = false
        var keys = plugin.metadata.requiredStoreKeys
        while let key = keys.popLast() {
            guard let index = providerOf[key], needed.insert(index).inserted else { continue }
            // Its own requirements are met in its own process, by what it is lent.
            if registered[index].servedBy != nil {
                servedElsewhere = true
                continue
            }
            keys += registered[index].metadata.requiredStoreKeys
        }
        let providers = needed.sorted().map { registered[$0] }.filter { $0.servedBy == nil }
        switch check(plugin, after: providers, folder: folder) {
        case let .failure(failure): return failure
        // Refused in the child without a crash: the registration here reports the exact error.
        case .success(.registered), .success(.refused): return nil
        case .success(.opened) where servedElsewhere: return nil
        case .success(.opened):
            return .probeFailed(path: plugin.path, reason: "the probe could not meet its requirements "
                                + "(services of the host's own base locator? give the probe child the same base)")
        }
    }
}
