import Foundation
internal import DynamicLoading

/// One child of a plugin's program, started in its sandbox and connected to nothing yet: the one a
/// load or restart serves from at once, or a standby (``PluginProcesses/standby``) that waits for
/// the next restart. Most of a restart's time is the program's start (its executable and Swift's
/// libraries mapped and bound, the sandbox entered); a standby has done it.
///
/// Invariants: `role` decides, under its lock and once, whose the child's end is: a serving child's
/// end is its generation's (the supervision hears of it); a standby's end only clears the standby.
/// A standby becomes serving only while it has not ended (``PluginProcess/takeStandby(for:)``).
final class SpawnedChild: Sendable {
    enum Role {
        case standby
        case serving(generation: Int)
        /// A standby that ended before it was taken.
        case ended
    }

    let child: ChildProcess
    let confinement: ChildConfinement?
    let role: Lock<Role>

    init(child: ChildProcess, confinement: ChildConfinement?, role: Lock<Role>) {
        self.child = child
        self.confinement = confinement
        self.role = role
    }
}

extension PluginProcess {
    /// Starts the plugin's program in its sandbox, as `role`; its end goes to the supervision if it
    /// is serving by then.
    func spawnChild(as role: SpawnedChild.Role) -> Result<SpawnedChild, PluginLoadError> {
        var environment = settings.environment
        // A crashing child need not spend seconds printing a backtrace nobody reads.
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment[ChildControlService.callTimeoutVariable] = "\(Self.milliseconds(settings.callTimeout))"
        let limits = ChildProcess.Limits(memoryBytes: settings.limits.memoryBytes, cpuSeconds: settings.limits.cpuSeconds,
                                         openFiles: settings.limits.openFiles)
        var confinement: ChildConfinement?
        if settings.sandbox.isEnabled {
            switch ChildConfinement.make(for: candidate, sandbox: settings.sandbox, grant: grant.withLock(\.granted),
                                         threads: settings.limits.threads) {
            case let .success(made): confinement = made
            case let .failure(error): return .failure(error)
            }
            if let variable = confinement?.variable { environment[variable.name] = variable.value }
        }
        let made = confinement
        let role = Lock(role)
        do {
            let child = try ChildProcess.spawn(executable: settings.executable, arguments: settings.arguments, environment: environment,
                                               inheritingEnvironment: confinement == nil, limits: limits, onOutput: nil) { [weak self] ending in
                made?.remove()
                let generation = role.withLock { role -> Int? in
                    if case let .serving(generation) = role { return generation }
                    role = .ended
                    return nil
                }
                if let generation {
                    self?.ended(generation: generation, ending)
                } else {
                    self?.state.withLock { state in
                        if state.standby?.role === role { state.standby = nil }
                    }
                }
            }
            return .success(SpawnedChild(child: child, confinement: confinement, role: role))
        } catch {
            confinement?.remove()
            return .failure(.processFailed(path: candidate.realPath, reason: "could not start \(settings.executable): \(error)"))
        }
    }

    /// The standby, made the child of `generation`, if there is one and it has not ended.
    func takeStandby(for generation: Int) -> SpawnedChild? {
        guard let standby = state.withLock({ state in
            defer { state.standby = nil }
            return state.standby
        }) else { return nil }
        let taken = standby.role.withLock { role -> Bool in
            guard case .standby = role else { return false }
            role = .serving(generation: generation)
            return true
        }
        return taken ? standby : nil
    }

    /// Starts a standby, on a thread of its own, if the settings ask for one and there is none.
    func prepareStandby() {
        guard settings.standby, state.withLock({ !$0.stopping && $0.withdrawn == nil && $0.standby == nil }) else { return }
        Thread.detachNewThread { [weak self] in
            guard let self, case let .success(standby) = self.spawnChild(as: .standby) else { return }
            let kept = self.state.withLock { state -> Bool in
                guard !state.stopping, state.withdrawn == nil, state.standby == nil else { return false }
                state.standby = standby
                return true
            }
            if !kept { standby.child.kill() }
        }
    }

    /// Ends the standby, if there is one (a stop, a withdrawal).
    func endStandby() {
        state.withLock { state in
            defer { state.standby = nil }
            return state.standby
        }?.child.kill()
    }
}
