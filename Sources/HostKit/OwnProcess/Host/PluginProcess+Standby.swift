import Foundation
internal import DynamicLoading
@_spi(HostKit) import PluginActors

/// A standby (``PluginProcesses/standby``): a child of the plugin's program started ahead, taken by
/// the next restart instead of a new program's start (most of a restart's time: its executable and
/// Swift's libraries mapped and bound, the sandbox entered, and its plugin loaded: opened, checked
/// and its constructors run, as the load request in its environment asks). The host connects it
/// ahead too, under a name of its own, and has its load's answer and checks its confinement then: a
/// takeover moves the connection to the plugin's name, and only registers and starts the plugin.
extension PluginProcess {
    /// The name a standby is connected under until a restart takes it.
    var standbyPeer: String { peer + " (standby)" }

    /// What every child of `settings` starts with (a zygote's too): ``PluginProcesses/environment``,
    /// and no backtrace (a crashing child need not spend seconds printing one nobody reads).
    static func baseEnvironment(of settings: PluginProcesses) -> [String: String] {
        settings.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, new in new }
    }

    /// Starts the plugin's program in its sandbox, as `role`, forked from the host's zygote if one serves; its end goes to the supervision if it
    /// is serving by then.
    func spawnChild(as role: SpawnedChild.Role) -> Result<SpawnedChild, PluginLoadError> {
        var environment = Self.baseEnvironment(of: settings)
        environment[ChildControlService.callTimeoutVariable] = "\(Self.milliseconds(settings.callTimeout))"
        if let request = ChildLoadRequest(candidate: candidate, startTimeout: startTimeout).variableValue {
            environment[ChildLoadRequest.preloadVariable] = request
        }
        let limits = ChildProcess.Limits(memoryBytes: settings.limits.memoryBytes, cpuSeconds: settings.limits.cpuSeconds,
                                         openFiles: settings.limits.openFiles)
        var confinement: ChildConfinement?
        if settings.sandbox.isEnabled {
            switch ChildConfinement.make(for: candidate, in: launcher.shadowFolder, sandbox: settings.sandbox, grant: grant.withLock { $0.granted },
                                         threads: settings.limits.threads) {
            case let .success(made): confinement = made
            case let .failure(error): return .failure(error)
            }
            if let variable = confinement?.variable { environment[variable.name] = variable.value }
        }
        let made = confinement
        let roleLock = Lock(role)
        // Held until the socket is duplicated: the child's end, if it comes meanwhile, is handled
        // (and its socket closed) only after that.
        // Asked before the role's lock: a child asked for while the zygote starts waits for it.
        let zygote = settings.zygote ? launcher.zygote.serving(settings, report: launcher.report) : nil
        return roleLock.withLock { role -> Result<SpawnedChild, PluginLoadError> in
            let child: ChildProcess
            do {
                let onEnd: @Sendable (ChildProcess.Ending) -> Void = { [weak self] ending in
                    made?.remove()
                    let generation = roleLock.withLock { role -> Int? in
                        if case let .serving(generation) = role { return generation }
                        role = .ended
                        return nil
                    }
                    if let generation {
                        self?.ended(generation: generation, ending)
                    } else {
                        // Its connection too: a process that inherited its socket could keep it open.
                        self?.state.withLock { state -> Standby? in
                            guard state.standby?.spawned.role === roleLock else { return nil }
                            defer { state.standby = nil }
                            return state.standby
                        }?.end("it ended before a restart took it", peer: self?.standbyPeer ?? "")
                    }
                }
                let forked = zygote.flatMap { zygote in
                    try? zygote.spawn(name: programName, threadName: candidate.fileNames.last ?? "plugin", environment: environment,
                                      inheritingEnvironment: made == nil, limits: limits, onOutput: nil, onEnd: onEnd)
                }
                child = try forked ?? ChildProcess.spawn(executable: settings.executable, name: programName, arguments: settings.arguments,
                                                         environment: environment, inheritingEnvironment: made == nil, limits: limits,
                                                         onOutput: nil, onEnd: onEnd)
            } catch {
                made?.remove()
                return .failure(.processFailed(path: candidate.realPath, reason: "could not start \(settings.executable): \(error)"))
            }
            let socket = fcntl(child.socket, F_DUPFD_CLOEXEC, 0)
            guard socket >= 0 else {
                // Nobody's end: nothing ran, and the caller counts the failure.
                let reason = String(cString: strerror(errno))
                role = .ended
                child.kill()
                return .failure(.processFailed(path: candidate.realPath, reason: "its socket could not be duplicated: \(reason)"))
            }
            return .success(SpawnedChild(child: child, confinement: made, role: roleLock, socket: socket))
        }
    }

    /// The standby, made the child of `generation` and moved to the plugin's name, if there is one
    /// and it has not ended.
    func takeStandby(for generation: Int) -> Standby? {
        // Bounded: a spawn, a connection and one call, within the call timeout.
        state.withLock { $0.standbyComing }?.wait()
        guard let standby = state.withLock({ state in
            defer { state.standby = nil }
            return state.standby
        }) else { return nil }
        let taken = standby.spawned.role.withLock { role -> Bool in
            // Also one that ended before its end was handled (killed a moment ago): taken, its
            // end would count as the crash of a child that never served, and pause the restart.
            guard case .standby = role, !standby.spawned.child.hasEnded, !standby.connection.isEnded,
                  PluginActorSystem.shared.transfer(standby.connection, to: peer) else { return false }
            role = .serving(generation: generation)
            return true
        }
        guard taken else {
            standby.end("it ended before a restart took it", peer: standbyPeer)
            return nil
        }
        // What a process started now is served from its start (its load may log).
        standby.served.withLock { $0 = true }
        return standby
    }

    /// Connects a standby just started under its own name, and has its load done ahead and its
    /// confinement checked: what a takeover would otherwise wait for. Ends the child if it fails,
    /// or if its plugin is stopped meanwhile (``endStandby()`` ends it while it is prepared).
    private func prepare(_ spawned: SpawnedChild) -> Result<Standby, PluginLoadError> {
        let path = candidate.realPath
        let served = Lock(false)
        let preparing: Standby
        do {
            preparing = Standby(spawned: spawned, connection: try connect(spawned, as: standbyPeer, servedOnce: served),
                                loaded: nil, served: served)
        } catch {
            spawned.child.kill()
            return .failure(.processFailed(path: path, reason: "\(error)"))
        }
        let stopped = state.withLock { state -> Bool in
            guard !state.stopping, state.withdrawn == nil else { return true }
            state.preparing = preparing
            return false
        }
        let standbyPeer = standbyPeer
        let asked = stopped ? .failure(ChildRefusal(description: "its plugin was stopped"))
                            : BlockingCall.run { try await self.controlProxy(of: standbyPeer).loadedAhead() }
        state.withLock { $0.preparing = nil }
        let standby: Result<Standby, PluginLoadError>
        switch asked {
        case let .failure(error):
            standby = .failure(.processFailed(path: path, reason: Self.text(of: error)))
        case let .success(loaded?):
            if let problem = confinementProblem(of: spawned, loading: loaded) {
                standby = .failure(.processFailed(path: path, reason: "its process is not confined: \(problem)"))
            } else {
                served.withLock { $0 = true }
                standby = .success(Standby(spawned: spawned, connection: preparing.connection, loaded: loaded, served: served))
            }
        case .success(nil):
            // Nothing of the plugin ran; its confinement is checked against the takeover's load.
            standby = .success(preparing)
        }
        if case let .failure(error) = standby { preparing.end("\(error)", peer: standbyPeer) }
        return standby
    }

    /// Starts a standby, on a thread of its own, if the settings ask for one and there is none
    /// (nor one on its way).
    func prepareStandby() {
        let coming = DispatchGroup()
        guard settings.standby, state.withLock({ state -> Bool in
            guard !state.stopping, state.withdrawn == nil, state.standby == nil, state.standbyComing == nil else { return false }
            coming.enter()
            state.standbyComing = coming
            return true
        }) else { return }
        Thread.detachNewThread { [weak self] in
            defer { coming.leave() }
            guard let self else { return }
            let made = self.spawnChild(as: .standby).flatMap { self.prepare($0) }
            let kept = self.state.withLock { state -> Bool in
                state.standbyComing = nil
                guard case let .success(standby) = made, !state.stopping, state.withdrawn == nil, state.standby == nil else { return false }
                state.standby = standby
                return true
            }
            switch made {
            case let .success(standby) where !kept: standby.end("its plugin was stopped", peer: self.standbyPeer)
            case let .failure(error) where self.state.withLock({ !$0.stopping && $0.withdrawn == nil }):
                self.report("plugin process \(TerminalText.escaped(self.peer)) has no standby: \(error)")
            case .success, .failure: break
            }
        }
    }

    /// Ends the standby, if there is one (a stop, a withdrawal).
    func endStandby() {
        let ended = state.withLock { state in
            defer { (state.standby, state.preparing) = (nil, nil) }
            return [state.standby, state.preparing].compactMap { $0 }
        }
        for standby in ended { standby.end("its plugin was stopped", peer: standbyPeer) }
    }
}
