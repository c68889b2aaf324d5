import Dispatch
import Distributed
internal import DynamicLoading
import Foundation
@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors

/// One plugin placed in a process of its own (``PluginProcesses``): the child that serves it now,
/// watched, and started again when it ends.
///
/// Invariants: one child at a time is current (`generation`); the end of an older one changes
/// nothing. The child's services are reached by the name ``peer``, which stays the same across
/// restarts, so proxies made before a restart reach the restarted child. A process that is
/// stopping or withdrawn is never started again.
final class PluginProcess: Sendable {
    struct State {
        var child: ChildProcess?
        var connection: PluginActorConnection?
        var generation = 0
        var restarts: [ContinuousClock.Instant] = []
        /// Whether the current child started its plugin: its end is then restarted at once.
        var served = false
        /// The children in a row that ended before they started their plugin: the pause before the
        /// next restart doubles with each (a crash loop), from ``PluginProcesses/RestartPolicy/backoff``.
        var endsBeforeServing = 0
        var stopping = false
        /// Why it is not started again, once it is not.
        var withdrawn: String?
        /// A child started ahead for the next restart (``PluginProcesses/standby``).
        var standby: Standby?
        /// The standby being prepared (connected, its load done ahead asked): a stop ends it too.
        var preparing: Standby?
        /// Left once the standby being started (on a thread of its own) is kept or not: a takeover waits
        /// for it rather than start a process of its own, which would be ready no sooner.
        var standbyComing: DispatchGroup?
    }

    /// The plugin file as the host checked it: each child must load exactly this file.
    let candidate: PluginCandidate
    /// How the host places it: the processes' settings, where their lines and counts go, the host.
    let launcher: OwnProcessLauncher
    var settings: PluginProcesses { launcher.settings }
    /// The name its services are reached by, the same for every child of this plugin.
    let peer: String
    let startTimeout: Duration
    /// What the host serves each of its children.
    let served = PluginProcessServices()
    let state = Lock(State())
    /// The plugin's name, once its first process said it (what its restarts are counted under).
    let pluginName = Lock<String?>(nil)
    /// What its sandbox grants (what it declared and the operator granted), and what it declared and
    /// was not granted, once its first process said what it declares: every later process gets the same.
    let grant = Lock<(granted: SandboxGrant, refused: [String])>((SandboxGrant(), []))

    private static let count = Lock(0)

    private init(candidate: PluginCandidate, launcher: OwnProcessLauncher, startTimeout: Duration) {
        self.candidate = candidate
        self.launcher = launcher
        self.startTimeout = startTimeout
        let number = Self.count.withLock { count in
            count += 1
            return count
        }
        peer = "\(candidate.fileNames.last ?? "plugin")#\(number)"
    }

    /// The name the host's zygote has in `ps`.
    static var zygoteName: String {
        TerminalText.escaped("\(ProcessInfo.processInfo.processName): plugin zygote")
    }

    /// What `ps` shows its children as, `host: plugin libClock.so` (the host's program, the plugin's
    /// file): the program they run is often the host's own (`/proc/self/exe`), the same for every plugin.
    var programName: String {
        TerminalText.escaped("\(ProcessInfo.processInfo.processName): plugin \(candidate.fileNames.last ?? "?")")
    }

    /// Where what happens to its processes is told (a crash, a restart, a withdrawal): escaped lines.
    func report(_ line: String) { launcher.report(line) }

    /// Starts a process for `candidate` and has it load the plugin; the plugin as the host sees it,
    /// or why it cannot be served so. The contract libraries this process maps for it are shown to
    /// `fileCheck`; what happens to its processes later goes where `launcher` says.
    static func launch(_ candidate: PluginCandidate, by launcher: OwnProcessLauncher, startTimeout: Duration,
                       fileCheck: FileCheck?) -> Result<LoadedPlugin, PluginLoadError> {
        let process = PluginProcess(candidate: candidate, launcher: launcher, startTimeout: startTimeout)
        var description: ChildPluginDescription
        var spawned: ChildProcess?
        do {
            description = try process.spawnAndLoad(spawned: &spawned).get()
            // Its name and needs are known only now: a plugin that declared needs the operator granted
            // gets a process whose sandbox has them (the sandbox is fixed at spawn), before it registers.
            if launcher.settings.sandbox.isEnabled {
                let operatorGrant = launcher.settings.sandbox.grants[description.name] ?? SandboxGrant()
                let (granted, refused) = operatorGrant.covering(description.needs.pluginNeeds)
                process.grant.withLock { $0 = (granted, refused) }
                if !granted.isEmpty {
                    process.pluginName.withLock { $0 = description.name }
                    description = try process.replaceChild(spawned: &spawned).get()
                    // No restart: calls reach the replacement as they reach a first child (the first
                    // one's connection, closed, left the peer down, and a connection to it waits for a start).
                    if let connection = process.state.withLock({ $0.connection }) {
                        PluginActorSystem.shared.liftHold(peer: process.peer, to: connection)
                    }
                }
            }
        } catch {
            process.stopNow()
            return .failure(error)
        }
        // Its keys' types are those of its contract libraries: mapped here first (the plugin's file never is).
        let opened = ContractLibraries.open(description.libraries.map(\.name), for: candidate, fileCheck: fileCheck)
        switch opened.flatMap({ RemotePluginModule.metadata(of: description, path: candidate.realPath) }) {
        case let .failure(error):
            process.stopNow()
            return .failure(error)
        case let .success(metadata):
            process.pluginName.withLock { $0 = metadata.name }
            process.served.declare(metadata, logs: launcher.logs, calls: launcher.settings.servedCalls)
            let libraries = description.libraries.compactMap { PluginHeader.decode($0.name, $0.version) }
            // Its `DT_NEEDED`, as the file says (this process never opened it): a contract library laid
            // beside it is its library, not a file refused, at this load and at each reload.
            var plugin = LoadedPlugin(path: candidate.realPath, metadata: metadata, libraries: libraries,
                                      linkedLibraries: candidate.dynamic?.needed ?? [], candidate: candidate) {
                RemotePluginModule(process: process, metadata: metadata)
            }
            plugin.servedBy = process.peer
            plugin.sandbox = description.sandbox ?? []
            (plugin.sandboxGranted, plugin.sandboxRefused) = process.grant.withLock { ($0.granted.lines, $0.refused) }
            return .success(plugin)
        }
    }

    /// A child whose plugin the host let go without stopping it ends with it: a reload's new file
    /// refused after its process opened it (a second file of a served plugin, say), or a plugin
    /// left out of a load's plan. (Its connection holds the child, not this object.)
    deinit {
        stopNow()
    }

    // MARK: One child

    /// Starts a new child and has it load the plugin; it becomes the current one.
    /// `spawned` is the child started, if one was (then its end is counted when it comes, as any end):
    /// what a failure after the spawn must end, and nothing else (a newer child may be current by then).
    func spawnAndLoad(spawned: inout ChildProcess?) -> Result<ChildPluginDescription, PluginLoadError> {
        let path = candidate.realPath
        let generation = state.withLock { state in
            state.generation += 1
            state.served = false
            return state.generation
        }
        // The standby takes over if there is one: its program is running, sandboxed and connected
        // already, and its plugin loaded if it loads ahead.
        let spawnedChild: SpawnedChild
        let connection: PluginActorConnection
        var loadedAhead: ChildPluginDescription?
        if let standby = takeStandby(for: generation) {
            (spawnedChild, connection, loadedAhead) = (standby.spawned, standby.connection, standby.loaded)
        } else {
            switch spawnChild(as: .serving(generation: generation)) {
            case let .success(made): spawnedChild = made
            case let .failure(error): return .failure(error)
            }
            do {
                connection = try connect(spawnedChild, as: peer)
            } catch {
                spawnedChild.child.kill()
                return .failure(.processFailed(path: path, reason: "\(error)"))
            }
        }
        let child = spawnedChild.child
        spawned = child
        // A stop (or a newer child) since this one began: it is not the current one, and must not stay.
        let current = state.withLock { state in
            guard !state.stopping, state.generation == generation else { return false }
            state.child = child
            state.connection = connection
            return true
        }
        guard current else {
            connection.close(.unavailable(peer: peer, reason: "its plugin was stopped"))
            PluginActorSystem.shared.markUnavailable(peer: peer, reason: "its plugin was stopped")
            child.kill()
            return .failure(.processFailed(path: path, reason: "its plugin was stopped while its process started"))
        }
        // A standby's confinement was checked against its load done ahead.
        if let loadedAhead { return .success(loadedAhead) }
        let request = ChildLoadRequest(candidate: candidate, startTimeout: startTimeout)
        let loaded = BlockingCall.run { try await self.controlProxy().load(request) }.mapError { error -> PluginLoadError in
            // A child that ended before it answered says why in its own words (its status, its last
            // output), however this side noticed: a write that found its socket closed says only
            // "Broken pipe" (a child refused its sandbox and exited while the request was on its way),
            // and one that ended before the request was sent finds its peer unavailable, waiting for
            // the restart (a forked child refuses its sandbox within a millisecond).
            let ended: Bool
            if case .processEnded? = error as? PluginActorError { ended = true } else { ended = child.hasEnded }
            guard ended else { return .processFailed(path: path, reason: Self.text(of: error)) }
            return .processFailed(path: path, reason: Self.text(of: PluginActorError.processEnded(peer: peer, reason: endReason(of: child))))
        }
        if case let .success(description) = loaded, let problem = confinementProblem(of: spawnedChild, loading: description) {
            child.kill()
            return .failure(.processFailed(path: path, reason: "its process is not confined: \(problem)"))
        }
        return loaded
    }

    /// Connects the host to `spawned` under the name `name`: its calls to the host are served from
    /// ``served`` (with `servedOnce`, only once it is set), and its end is said as `spawned`'s child ended.
    func connect(_ spawned: SpawnedChild, as name: String, servedOnce: Lock<Bool>? = nil) throws -> PluginActorConnection {
        let child = spawned.child
        // Each call the host makes to its services counted under the plugin's name (once its first
        // process said it); not the host's own calls that steer the process (load, start, heartbeat).
        let calls = launcher.metrics.map { metrics in
            { @Sendable [pluginName] (service: String, method: String, outcome: String, duration: Duration) in
                guard service != ChildControlService.name, let plugin = pluginName.withLock({ $0 }) else { return }
                metrics.processCalled(plugin: plugin, method: method, outcome: outcome, duration: duration)
            }
        }
        return try PluginActorSystem.shared.connect(
            peer: name, socket: spawned.socket, callTimeout: settings.callTimeout,
            serve: { [served] name in
                guard servedOnce?.withLock({ $0 }) ?? true else {
                    throw ChildRefusal(description: "the host serves a standby nothing before its confinement is checked")
                }
                return try await served.serve(name)
            },
            endReason: { [weak self] in self?.endReason(of: child) ?? "it ended" }, callEnded: calls,
            // A restart costs the calls in flight: those made meanwhile wait for the next child to start.
            callsWaitForSuccessor: [ChildControlService.name])
    }

    /// Nil if `spawned` is confined as its settings ask: the child's word that it entered its sandbox
    /// (in what its load answered), and the kernel's; else what is wrong.
    func confinementProblem(of spawned: SpawnedChild, loading description: ChildPluginDescription) -> String? {
        guard let confinement = spawned.confinement else { return nil }
        guard let layers = description.sandbox else { return "its program did not enter the sandbox (it is not PluginChild.serve of this HostKit)" }
        return confinement.problem(ofProcess: spawned.child.pid, layers: layers)
    }

    /// Ends the current child, before its plugin started, and starts another that loads it again.
    func replaceChild(spawned: inout ChildProcess?) -> Result<ChildPluginDescription, PluginLoadError> {
        // A standby would have the sandbox of before.
        endStandby()
        let (child, connection) = state.withLock { state in
            // Its end is no crash, and restarts nothing.
            state.generation += 1
            defer { (state.child, state.connection) = (nil, nil) }
            return (state.child, state.connection)
        }
        connection?.close(.unavailable(peer: peer, reason: "its process was replaced by one with its grant"))
        child?.kill()
        _ = child?.waitForEnd()
        return spawnAndLoad(spawned: &spawned)
    }

    /// The host's proxy of the control of the child reached as `name` (making it sends nothing).
    func controlProxy(of name: String? = nil) throws -> ChildControlService {
        try ChildControlService.resolve(id: PluginActorID(peer: name ?? peer, name: ChildControlService.name), using: .shared)
    }

    /// How `child` ended, once it has (killed if it closed its connection and lives on), with its last output lines.
    private func endReason(of child: ChildProcess) -> String {
        let ending = Self.ending(of: child, within: .seconds(2)) ?? {
            child.kill()
            return child.waitForEnd()
        }()
        let lines = child.lastOutputLines.suffix(5).map { TerminalText.escaped($0) }
        return "\(ending)" + (lines.isEmpty ? "" : "; its last output: " + lines.joined(separator: " | "))
    }

    /// How `child` ended, if it does within `bound`.
    private static func ending(of child: ChildProcess, within bound: Duration) -> ChildProcess.Ending? {
        let ending = Lock<ChildProcess.Ending?>(nil)
        let ended = DispatchSemaphore(value: 0)
        // Returns once the child is reaped: at once, or after the kill that follows a timeout.
        Thread.detachNewThread {
            let end = child.waitForEnd()
            ending.withLock { $0 = end }
            ended.signal()
        }
        let (seconds, attoseconds) = bound.components
        _ = ended.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
        return ending.withLock { $0 }
    }

    // MARK: Lifecycle

    /// Registers the plugin in its child, as the host registers a plugin in process: its requirements
    /// and settings are served from `services`. Throws what the registration threw there. Bounded by
    /// the call timeout; blocks its thread (registration is synchronous).
    func register(services: ServiceResolver) throws {
        served.lend(services)
        let logLevel = pluginName.withLock({ $0 }).flatMap { launcher.logs?.level(of: $0) }
        // The child answers once its lines were sent: they are written before the host goes on.
        defer { served.drainLogBlocking() }
        let timesCalls = launcher.settings.servedCalls != nil
        try BlockingCall.run { try await self.controlProxy().register(logLevel: logLevel?.rawValue, timesCalls: timesCalls) }
            .mapError { ChildRefusal(description: Self.text(of: $0)) }.get()
    }

    /// Starts the plugin registered in its child; its requirements are served from `services`.
    func start(services: ServiceResolver) async throws {
        served.lend(services)
        let generation = state.withLock { $0.generation }
        // The child answers once its lines were sent: they are written before the host goes on.
        do {
            try await PluginActorSystem.withCallTimeout(startTimeout + Self.hookCallMargin) {
                try await controlProxy().start(timeout: startTimeout)
            }
        } catch {
            await served.drainLog()
            throw error
        }
        await served.drainLog()
        // The child this call started, if it is still the current one (not one that replaced it since).
        let connection = state.withLock { state -> PluginActorConnection? in
            guard state.generation == generation else { return nil }
            state.served = true
            state.endsBeforeServing = 0
            return state.connection
        }
        // The calls that waited while it restarted go to it now (if it is still the one they wait for).
        if let connection { PluginActorSystem.shared.liftHold(peer: peer, to: connection) }
        startHeartbeat()
        if connection != nil { prepareStandby() }
    }

    /// Once the calls the child is serving are answered (at most `timeout`), runs the plugin's
    /// shutdown hook in its child, then ends the child; never started again. So an upgrade's old
    /// version finishes the calls it has: the slots hand out the new version's proxies by then.
    func stop(timeout: Duration) async -> String? {
        let (stopping, withdrawn) = state.withLock { state -> (Bool, Bool) in
            defer { state.stopping = true }
            return (state.stopping, state.withdrawn != nil)
        }
        guard !stopping else { return nil }
        // No child to ask: it ended past its restarts, and what ran its hook ended with it.
        guard !withdrawn else {
            stopNow()
            return nil
        }
        await callsAnswered(within: timeout)
        let problem: String?
        do {
            problem = try await PluginActorSystem.withCallTimeout(timeout + Self.hookCallMargin) {
                try await controlProxy().stop(timeout: timeout)
            }
        } catch {
            problem = "its process did not stop cleanly: \(Self.text(of: error))"
        }
        await served.drainLog()
        stopNow()
        return problem
    }

    /// How much longer than the hook it runs the host waits for a start or stop call: the child's
    /// own timeout of the hook must be what answers, with its text, not the host's of the call.
    private static let hookCallMargin: Duration = .seconds(5)

    /// Returns once no call to the current child waits for an answer, or after `bound`.
    private func callsAnswered(within bound: Duration) async {
        let deadline = ContinuousClock.now + bound
        while let connection = state.withLock({ $0.connection }), connection.pendingCalls > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Ends the current child at once; never started again.
    func stopNow() {
        let (child, connection, withdrawn) = state.withLock { state in
            state.stopping = true
            // No end of a child started before counts from now on, nor does its heartbeat go on.
            state.generation += 1
            return (state.child, state.connection, state.withdrawn)
        }
        // A proxy of a withdrawn process keeps saying why it was withdrawn.
        let reason = withdrawn.map { "withdrawn: \($0)" } ?? "its plugin was stopped"
        endStandby()
        PluginActorSystem.shared.markUnavailable(peer: peer, reason: reason)
        connection?.close(.unavailable(peer: peer, reason: reason))
        child?.kill()
    }

    /// `duration` in whole milliseconds, clamped to what an `Int64` holds (a timeout of "forever").
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = max(seconds, 0).multipliedReportingOverflow(by: 1000)
        return overflow ? .max : whole + attoseconds / 1_000_000_000_000_000
    }

    /// An error's text; for a refusal the child sent, its own text.
    static func text(of error: any Error) -> String {
        if case let PluginActorError.remoteFailure(_, type, message) = error, type.hasSuffix("ChildRefusal") { return message }
        return "\(error)"
    }
}
