/// Detects dependency cycles, on one thread (the service is already on the path) and across threads
/// and tasks (making it would wait for a maker that, through others, waits for us).
///
/// The per-task path is a task-local value, read only when a service is being made. The
/// cross-thread graph sits behind one lock that is touched only when a singleton is made or waited
/// for, never on the path of a service that already exists. Its nodes are frames, not whole
/// resolutions: two child tasks of one factory may wait for different services at once, and a
/// sibling's wait holds back only the services on that sibling's own path.
enum ResolutionTracker {
    @TaskLocal static var current: ResolutionFrame?

    /// Names one wait, so that ending it ends only that one.
    struct WaitToken {
        fileprivate let id: Int
    }

    private struct Wait {
        let cell: ObjectIdentifier
        /// The waiting task's top frame: every service on its path waits with it.
        let top: ResolutionFrame
    }

    /// Who makes which cell, and who waits for which.
    private struct Graph {
        /// The frame making each cell now.
        var owners: [ObjectIdentifier: ResolutionFrame] = [:]
        /// Every wait in progress.
        var waits: [Int: Wait] = [:]
        var nextWait = 0

        /// Whether making `cell` waits, through the waits below its maker and the makers of what
        /// they wait for, on a service on `frame`'s path. If so, returns the services passed on the
        /// way and the cell on `frame`'s path that is reached.
        func leadsBack(to frame: ResolutionFrame, from cell: ObjectIdentifier, service: ServiceIdentity,
                       visited: inout Set<ObjectIdentifier>) -> (hops: [ServiceIdentity], reached: ObjectIdentifier)? {
            guard let maker = owners[cell] else { return nil }
            if frame.hasOnPath(maker) { return ([], cell) }
            guard visited.insert(ObjectIdentifier(maker)).inserted else { return nil }
            // The maker finishes only when the waits of its own task, and of the tasks it started, do.
            for wait in waits.values where wait.top.hasOnPath(maker) {
                let next = owners[wait.cell]?.service ?? service
                if let found = leadsBack(to: frame, from: wait.cell, service: next, visited: &visited) {
                    return ((wait.top.services(from: cell) ?? [service]) + found.hops, found.reached)
                }
            }
            return nil
        }
    }

    private static let graph = Lock(Graph())

    /// Throws if `cell` is already being made on the current path (for a params slot: with equal
    /// params, `call`), or if this thread has too little stack left to make one more service on it
    /// (``StackHeadroom/isExhausted``).
    static func checkPath(_ frame: ResolutionFrame?, cell: ObjectIdentifier, call: ParamsOnPath = .none,
                          service: ServiceIdentity) throws(ServiceObtainError) {
        guard let frame else { return }
        if let path = frame.services(from: cell, call: call) {
            throw ServiceObtainError(service: service, error: ServiceLocatorError.cycle(path: path + [service], acrossThreads: false))
        }
        if StackHeadroom.isExhausted {
            throw ServiceObtainError(service: service, error: ServiceLocatorError.resolutionTooDeep(
                key: service.key ?? service.description, depth: frame.depth + 1))
        }
    }

    /// Runs `make` as the maker of `cell` (for `call`), with a new frame on the current path.
    static func make<T>(cell: ObjectIdentifier, call: ParamsOnPath = .none, service: ServiceIdentity,
                        parent: ResolutionFrame?, owned: Bool, _ make: () throws -> T) rethrows -> T {
        let frame = ResolutionFrame(cell: cell, call: call, service: service, parent: parent)
        if owned { own(cell, by: frame) }
        defer { if owned { disown(cell) } }
        return try $current.withValue(frame, operation: make)
    }

    /// Records that `frame` is making `cell`, so waits for it can be checked for cycles.
    private static func own(_ cell: ObjectIdentifier, by frame: ResolutionFrame) {
        graph.withLock { $0.owners[cell] = frame }
    }

    private static func disown(_ cell: ObjectIdentifier) {
        _ = graph.withLock { $0.owners.removeValue(forKey: cell) }
    }

    /// ``make(cell:service:parent:owned:_:)`` for an async factory: the frame is the task-local path
    /// of the factory's task, and of every task it starts.
    static func makeAsync<T>(cell: ObjectIdentifier, service: ServiceIdentity, parent: ResolutionFrame?,
                             owned: Bool, _ make: @Sendable () async throws -> T) async throws -> T {
        let frame = ResolutionFrame(cell: cell, service: service, parent: parent)
        if owned { own(cell, by: frame) }
        defer { if owned { disown(cell) } }
        return try await $current.withValue(frame, operation: make)
    }

    /// Records that the current path is about to wait for `cell`, made by another thread or task, or
    /// throws the cycle that waiting would close. Pass the token to ``endWait(_:)`` after the wait.
    static func beginWait(_ frame: ResolutionFrame?, cell: ObjectIdentifier, service: ServiceIdentity) throws
        -> WaitToken? {
        // A thread that is making nothing cannot be waited for, so its wait cannot close a cycle.
        guard let frame else { return nil }
        let outcome: Result<WaitToken, ServiceObtainError> = graph.withLock { graph in
            var visited: Set<ObjectIdentifier> = []
            if let (hops, reached) = graph.leadsBack(to: frame, from: cell, service: service, visited: &visited) {
                let mine = frame.services(from: reached) ?? [graph.owners[reached]?.service ?? service]
                let cycle = ServiceLocatorError.cycle(path: mine + hops + [mine[0]], acrossThreads: true)
                return .failure(ServiceObtainError(service: service, error: cycle))
            }
            graph.nextWait += 1
            graph.waits[graph.nextWait] = Wait(cell: cell, top: frame)
            return .success(WaitToken(id: graph.nextWait))
        }
        return try outcome.get()
    }

    /// Ends the wait ``beginWait(_:cell:service:)`` recorded, and only that one.
    static func endWait(_ token: WaitToken?) {
        guard let token else { return }
        _ = graph.withLock { $0.waits.removeValue(forKey: token.id) }
    }
}
