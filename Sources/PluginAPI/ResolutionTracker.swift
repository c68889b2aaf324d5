/// The services a thread (or task) is making right now, innermost on top.
///
/// Frames form a persistent list through `parent`, so pushing one is a single allocation and a
/// path can be read without copying. `chain` is shared by every frame of one outermost get.
final class ResolutionFrame: Sendable {
    let cell: ObjectIdentifier
    let service: ServiceIdentity
    let parent: ResolutionFrame?
    let chain: ResolutionChain

    init(cell: ObjectIdentifier, service: ServiceIdentity, parent: ResolutionFrame?) {
        self.cell = cell
        self.service = service
        self.parent = parent
        self.chain = parent?.chain ?? ResolutionChain()
    }

    /// The services from the frame making `cell` up to this one, or `nil` if `cell` is not on the path.
    func services(from cell: ObjectIdentifier) -> [ServiceIdentity]? {
        var reversed: [ServiceIdentity] = []
        var frame: ResolutionFrame? = self
        while let current = frame {
            reversed.append(current.service)
            if current.cell == cell { return reversed.reversed() }
            frame = current.parent
        }
        return nil
    }
}

/// Identity of one outermost resolution: the unit that can wait for another.
final class ResolutionChain: Sendable {}

/// Detects dependency cycles, on one thread (the service is already on the path) and across threads
/// (making it would wait for a thread that, through others, waits for us).
///
/// The per-thread path is a task-local value, read only when a service is being made. The
/// cross-thread graph sits behind one lock that is touched only when a singleton is made or waited
/// for, never on the path of a service that already exists.
enum ResolutionTracker {
    @TaskLocal static var current: ResolutionFrame?

    /// Names one wait, so that ending it ends only that one: the child tasks of an async factory
    /// share their parent's chain and may each wait for another service at the same time.
    struct WaitToken {
        fileprivate let chain: ObjectIdentifier
        fileprivate let id: Int
    }

    private struct Owner {
        let chain: ResolutionChain
        let service: ServiceIdentity
    }

    private struct Wait {
        let id: Int
        let cell: ObjectIdentifier
        let top: ResolutionFrame
    }

    /// Who makes which cell, and which cells each chain waits for.
    private struct Graph {
        var owners: [ObjectIdentifier: Owner] = [:]
        /// Every wait in progress, by the chain that waits; a chain may wait for several cells at once.
        var waits: [ObjectIdentifier: [Wait]] = [:]
        var nextWait = 0

        /// Follows `cell` to the chain making it, then every wait of that chain, and so on. If that
        /// leads to `chain`, returns the services passed on the way and the cell of `chain` reached.
        func leadsBack(to chain: ResolutionChain, from cell: ObjectIdentifier, service: ServiceIdentity,
                       visited: inout Set<ObjectIdentifier>) -> (hops: [ServiceIdentity], reached: ObjectIdentifier)? {
            guard let owner = owners[cell] else { return nil }
            if owner.chain === chain { return ([], cell) }
            guard visited.insert(ObjectIdentifier(owner.chain)).inserted else { return nil }
            for wait in waits[ObjectIdentifier(owner.chain)] ?? [] {
                let next = owners[wait.cell]?.service ?? service
                if let found = leadsBack(to: chain, from: wait.cell, service: next, visited: &visited) {
                    return ((wait.top.services(from: cell) ?? [service]) + found.hops, found.reached)
                }
            }
            return nil
        }
    }

    private static let graph = Lock(Graph())

    /// Throws if `cell` is already being made on the current path.
    static func checkPath(_ frame: ResolutionFrame?, cell: ObjectIdentifier, service: ServiceIdentity)
        throws(ServiceObtainError) {
        guard let frame, let path = frame.services(from: cell) else { return }
        throw ServiceObtainError(service: service, error: ServiceCycleError(cycle: path + [service], acrossThreads: false))
    }

    /// Runs `make` as the maker of `cell`, with a new frame on the current path.
    static func make<T>(cell: ObjectIdentifier, service: ServiceIdentity, parent: ResolutionFrame?,
                        owned: Bool, _ make: () throws -> T) rethrows -> T {
        let frame = ResolutionFrame(cell: cell, service: service, parent: parent)
        if owned { own(cell, by: frame) }
        defer { if owned { disown(cell) } }
        return try $current.withValue(frame, operation: make)
    }

    /// Records that `frame`'s chain is making `cell`, so waits for it can be checked for cycles.
    private static func own(_ cell: ObjectIdentifier, by frame: ResolutionFrame) {
        graph.withLock { $0.owners[cell] = Owner(chain: frame.chain, service: frame.service) }
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
            if let (hops, reached) = graph.leadsBack(to: frame.chain, from: cell, service: service, visited: &visited) {
                let mine = frame.services(from: reached) ?? [graph.owners[reached]?.service ?? service]
                let cycle = ServiceCycleError(cycle: mine + hops + [mine[0]], acrossThreads: true)
                return .failure(ServiceObtainError(service: service, error: cycle))
            }
            let chain = ObjectIdentifier(frame.chain)
            graph.nextWait += 1
            graph.waits[chain, default: []].append(Wait(id: graph.nextWait, cell: cell, top: frame))
            return .success(WaitToken(chain: chain, id: graph.nextWait))
        }
        return try outcome.get()
    }

    /// Ends the wait ``beginWait(_:cell:service:)`` recorded, and only that one.
    static func endWait(_ token: WaitToken?) {
        guard let token else { return }
        graph.withLock { graph in
            graph.waits[token.chain]?.removeAll { $0.id == token.id }
            if graph.waits[token.chain]?.isEmpty == true { graph.waits[token.chain] = nil }
        }
    }
}
