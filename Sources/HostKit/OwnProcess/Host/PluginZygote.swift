import Dispatch
import Foundation
internal import DynamicLoading

/// A host's zygote for its plugins' processes (``PluginProcesses/zygote``): one process of the child
/// program, started with the host (or at the first child after a shutdown), that forks the
/// children; a child asked for while it starts is spawned. Closed when the host shuts down (it ends after its last child). One that refuses to
/// fork (a thread it did not expect) or cannot start is given up on: the host spawns each child, as
/// without one, and says so once. A host built with ThreadSanitizer starts none
/// (``Zygote/unforkableBuild``).
final class PluginZygote: Sendable {
    private enum Phase: Sendable {
        case none
        case starting(DispatchGroup)
        case serving(Zygote)
        case givenUp
    }

    private let phase = Lock(Phase.none)
    /// How long a zygote may take to be ready before it is given up on.
    static let readyTimeout = Duration.seconds(60)

    deinit {
        close()
    }

    /// The zygote to fork a child from, if one serves; nil if none does yet (one is started if none
    /// is): a child needed while the zygote starts is spawned, as soon as it would have been
    /// without one (waiting for the zygote's start measured slower than a spawn beside it).
    func serving(_ settings: PluginProcesses, report: @escaping @Sendable (String) -> Void) -> Zygote? {
        start(settings, report: report)
        return phase.withLock { phase in
            guard case let .serving(zygote) = phase, zygote.problem == nil else { return nil }
            return zygote
        }
    }

    /// Starts a zygote for `settings`'s children in the background, unless one serves or starts (or
    /// was given up on).
    func start(_ settings: PluginProcesses, report: @escaping @Sendable (String) -> Void) {
        let ready = DispatchGroup()
        let starts = phase.withLock { phase -> Bool in
            // A build whose forks cannot be sandboxed (ThreadSanitizer's) starts none, and says nothing.
            guard Zygote.unforkableBuild == nil else {
                phase = .givenUp
                return false
            }
            switch phase {
            case let .serving(zygote) where zygote.problem == nil: return false
            case .starting, .givenUp: return false
            case .none, .serving:
                ready.enter()
                phase = .starting(ready)
                return true
            }
        }
        guard starts else { return }
        let environment = PluginProcess.baseEnvironment(of: settings)
        Thread.detachNewThread { [self] in
            defer { ready.leave() }
            let outcome = Result { () throws(ChildProcessError) in
                try Zygote.start(executable: settings.executable, name: PluginProcess.zygoteName, arguments: settings.arguments,
                                 environment: environment, inheritingEnvironment: !settings.sandbox.isEnabled)
            }
            let problem: String?
            switch outcome {
            case let .success(zygote): problem = zygote.awaitReady(within: Self.readyTimeout)
            case let .failure(error): problem = "\(error)"
            }
            let kept = phase.withLock { phase -> Bool in
                // This start's, not a later one's (the host shut down meanwhile, and a child started another).
                guard case let .starting(current) = phase, current === ready else { return false }
                if problem == nil, case let .success(zygote) = outcome {
                    phase = .serving(zygote)
                    return true
                }
                phase = .givenUp
                return false
            }
            // Closed while it started (the host shut down): not kept.
            if !kept, case let .success(zygote) = outcome { zygote.close() }
            if let problem {
                report(TerminalText.escaped("no zygote for the plugins' processes (each is started on its own): \(problem)"))
            }
        }
    }

    /// Waits until the zygote being started serves or was given up on (for tests: the next child is
    /// then forked if it can be).
    func waitUntilSettled() {
        let current = phase.withLock { $0 }
        if case let .starting(ready) = current { ready.wait() }
    }

    /// Forks no more: the zygote ends after its last child. A later child starts another.
    func close() {
        let zygote = phase.withLock { phase -> Zygote? in
            defer { if case .givenUp = phase {} else { phase = .none } }
            guard case let .serving(zygote) = phase else { return nil }
            return zygote
        }
        zygote?.close()
    }
}
