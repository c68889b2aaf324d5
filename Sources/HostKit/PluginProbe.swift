import Foundation
import Glibc
import PluginAPI

/// Loads each plugin in a child process before the host loads it, so a plugin that crashes or hangs
/// while loading costs only the child: the host reports the signal or the timeout and carries on.
///
/// The child is a program that calls ``PluginProbe/probe(_:discovery:)`` for the path it is given
/// (the `host` command does so for `host __probe FILE`). The child must end with a verdict, written
/// to its standard output behind a token only the parent and the child know: an exit without one
/// (a plugin that calls `exit`, whatever the status), a signal or a timeout is a failure. A plugin the
/// child refused cleanly is loaded by the host anyway, to report its exact error.
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
    public static let cleanFailureStatus: Int32 = 3
    /// The variable that gives the child the token of its verdict.
    static let tokenVariable = "SWIFT_PLUGIN_PROBE_TOKEN"

    /// A probe that runs `executable arguments... PATH` for each plugin.
    public init(executable: String, arguments: [String], timeout: Duration = .seconds(10),
                environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
        self.environment = environment
    }

    /// Runs the child for `candidate`; returns why it failed if it crashed or hung, else `nil`.
    func check(_ candidate: PluginCandidate) -> PluginLoadError? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + [candidate.realPath]
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        // A crashing child need not spend seconds printing a backtrace nobody reads.
        variables["SWIFT_BACKTRACE"] = "enable=no"
        let token = UUID().uuidString
        variables[Self.tokenVariable] = token
        process.environment = variables
        // A file, not a pipe: a child that writes much must not block on a full pipe.
        let verdictFile = FileManager.default.temporaryDirectory.appendingPathComponent("plugin-probe-\(token)")
        guard FileManager.default.createFile(atPath: verdictFile.path, contents: nil),
              let output = try? FileHandle(forWritingTo: verdictFile) else {
            return .probeFailed(path: candidate.realPath, reason: "could not create \(verdictFile.path)")
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
            return .probeFailed(path: candidate.realPath, reason: "could not start \(executable): \(error)")
        }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            usleep(5_000)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return .probeFailed(path: candidate.realPath, reason: "did not finish loading within \(timeout), killed")
        }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            let name = strsignal(signal).map { String(cString: $0) } ?? "signal"
            return .probeFailed(path: candidate.realPath, reason: "crashed while loading: signal \(signal) (\(name))")
        }
        let status = process.terminationStatus
        let said = (try? String(contentsOf: verdictFile, encoding: .utf8)) ?? ""
        let verdict: Int32? = said.contains("\(token) loaded\n") ? 0 : said.contains("\(token) refused\n") ? Self.cleanFailureStatus : nil
        guard let verdict else {
            return .probeFailed(path: candidate.realPath, reason: "the probe exited with status \(status) without a verdict "
                                + "(did the plugin call exit?)")
        }
        guard status == verdict else {
            return .probeFailed(path: candidate.realPath, reason: "the probe exited with status \(status) after its verdict")
        }
        return nil
    }

    /// What the child runs: loads the plugin at `path` into a scratch locator, as the host would,
    /// writes its verdict and returns the exit status: 0 if it loaded, ``cleanFailureStatus`` (with
    /// the reason on stderr) if not.
    public static func probe(_ path: String, discovery: PluginDiscovery = PluginDiscovery()) -> Int32 {
        // Out of the environment before the plugin runs: `getenv` in the plugin finds nothing. This
        // keeps a careless exit from passing; a plugin set on forging a verdict can still read the
        // process's initial environment (/proc/self/environ), as it can do anything the host can.
        let token = ProcessInfo.processInfo.environment[tokenVariable] ?? ""
        unsetenv(tokenVariable)
        let outcome = discovery.candidate(path).flatMap(PluginLoader.load).flatMap { plugin in
            PluginRegistration.register(plugin, into: ServiceLocator()).map { _ in plugin }
        }
        switch outcome {
        case .success:
            FileHandle.standardOutput.write(Data("\(token) loaded\n".utf8))
            return 0
        case let .failure(error):
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            FileHandle.standardOutput.write(Data("\(token) refused\n".utf8))
            return cleanFailureStatus
        }
    }
}
