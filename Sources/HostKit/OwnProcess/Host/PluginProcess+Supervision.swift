import Foundation
internal import DynamicLoading
@_spi(HostKit) import PluginActors

/// The supervision of a plugin's process: a heartbeat while it serves, and, when it ends, a restart
/// (at once for a child that served, after a growing pause for one that ended before it served), or,
/// past the restarts its ``PluginProcesses/RestartPolicy`` allows, its withdrawal, which the host
/// (``PluginProcessOwner``) is told of.
extension PluginProcess {
    /// Asks the child every ``PluginProcesses/heartbeat`` whether it answers; kills it if not.
    func startHeartbeat() {
        guard let interval = settings.heartbeat else { return }
        let generation = state.withLock { $0.generation }
        Task.detached { [weak self] in
            while let self, self.isCurrent(generation) {
                try? await Task.sleep(for: interval)
                guard self.isCurrent(generation) else { return }
                do {
                    try await PluginActorSystem.withCallTimeout(interval) { try await self.controlProxy().ping() }
                } catch PluginActorError.timedOut {
                    // Its own child only: one that replaced it since answers to its own heartbeat.
                    guard let child = self.state.withLock({ $0.generation == generation ? $0.child : nil }) else { return }
                    self.report("plugin process \(TerminalText.escaped(self.peer)) did not answer within \(interval): killed")
                    child.kill()
                    return
                } catch {
                    return
                }
            }
        }
    }

    private func isCurrent(_ generation: Int) -> Bool {
        state.withLock { !$0.stopping && $0.withdrawn == nil && $0.generation == generation }
    }

    /// What follows the end of the current child.
    private enum EndDecision {
        case restart(after: Duration)
        case withdraw(because: String)
    }

    /// A child ended: unless it was stopped (or is not the current one), restart it (after a pause if
    /// it had not served), or withdraw it past the restarts allowed.
    func ended(generation: Int, _ ending: ChildProcess.Ending) {
        let now = ContinuousClock.now
        let policy = settings.restarts
        let decision = state.withLock { state -> EndDecision? in
            guard !state.stopping, state.withdrawn == nil, state.generation == generation else { return nil }
            state.restarts = state.restarts.filter { now - $0 < policy.window } + [now]
            let count = state.restarts.count
            guard count <= policy.maximum else {
                let why = "it ended \(count) times within \(policy.window), last \(ending)"
                state.withdrawn = why
                return .withdraw(because: why)
            }
            // A child that served is restarted at once: its end costs the calls in flight, not a pause.
            // One that ended before it served is a crash loop: the pause grows with each in a row.
            guard !state.served else { return .restart(after: .zero) }
            state.endsBeforeServing += 1
            return .restart(after: min(policy.backoff * (1 << min(state.endsBeforeServing - 1, 30)), policy.maximumBackoff))
        }
        switch decision {
        case nil: return
        case let .withdraw(why)?:
            endStandby()
            PluginActorSystem.shared.markUnavailable(peer: peer, reason: "withdrawn: \(why)")
            report("plugin process \(TerminalText.escaped(peer)) \(ending); withdrawn: \(why)")
            // The host withdraws its plugin on a thread of its own: this one reaps children, which a
            // reload or shutdown holding the host's lock may wait for.
            let (peer, owner) = (peer, launcher.owner)
            Thread.detachNewThread { owner?.processWithdrawn(peer: peer, because: why) }
        case let .restart(pause)?:
            scheduleRestart(after: pause, ending: ending)
        }
    }

    /// Reports the end and starts a new child after `pause`. Calls made meanwhile wait for it if it
    /// comes at once; in a crash loop's pause they fail at once, saying when it comes.
    private func scheduleRestart(after pause: Duration, ending: ChildProcess.Ending) {
        let name = TerminalText.escaped(peer)
        let restarting = "restarting " + (pause == .zero ? "now" : "in \(pause)")
        if pause > .zero {
            // Not the report's words ("; restarting in"): a restart that fails quotes this reason.
            PluginActorSystem.shared.markUnavailable(peer: peer, reason: "its process \(ending); a new one starts in \(pause)")
        } else {
            // The end may reach this thread before the connection's reader: calls wait from now on.
            PluginActorSystem.shared.holdCalls(peer: peer, processEnded: "\(ending)")
        }
        report("plugin process \(name) \(ending); \(restarting)")
        // A thread of its own: a restart waits for its child to load, which must hold none of Swift
        // concurrency's few threads.
        Thread.detachNewThread { [weak self] in
            if pause > .zero {
                Thread.sleep(forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
            }
            self?.restart()
        }
    }

    /// A new child, loading and starting the plugin as the first did.
    private func restart() {
        guard !state.withLock({ $0.stopping || $0.withdrawn != nil }) else { return }
        guard let services = served.lent else {
            PluginActorSystem.shared.markUnavailable(peer: peer, reason: "its process ended before its plugin registered")
            return
        }
        var spawned: ChildProcess?
        switch spawnAndLoad(spawned: &spawned) {
        case let .failure(error):
            report("plugin process \(TerminalText.escaped(peer)) was not restarted: \(error)")
            // Counted as another end, once: the child this restart started is ended, and its end counts
            // (restarted again later, or withdrawn); when none started, the failure is counted here.
            // Only this restart's own child: if it ended by itself, its end's restart may be current now.
            if let spawned {
                spawned.kill()
            } else {
                ended(generation: state.withLock { $0.generation }, .exited(-1))
            }
        case .success:
            let registered = Result { try register(services: services) }
            switch registered.flatMap({ BlockingCall.run({ try await self.start(services: services) }) }) {
            case .success:
                report("plugin process \(TerminalText.escaped(peer)) restarted")
                if let metrics = launcher.metrics, let name = pluginName.withLock({ $0 }) { metrics.processRestarted(plugin: name) }
            case let .failure(error):
                report("plugin process \(TerminalText.escaped(peer)) restarted but did not start: "
                       + TerminalText.escaped(Self.text(of: error)))
                spawned?.kill()
            }
        }
    }
}
