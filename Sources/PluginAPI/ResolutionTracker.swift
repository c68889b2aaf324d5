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

    private struct Owner {
        let chain: ResolutionChain
        let service: ServiceIdentity
    }

    private struct Wait {
        let cell: ObjectIdentifier
        let top: ResolutionFrame
    }

    private struct Graph {
        var owners: [ObjectIdentifier: Owner] = [:]
        var waits: [ObjectIdentifier: Wait] = [:]
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

    /// Records that the current path is about to wait for `cell`, made by another thread, or throws
    /// the cycle that waiting would close. Call ``endWait(_:)`` after the wait.
    static func beginWait(_ frame: ResolutionFrame?, cell: ObjectIdentifier, service: ServiceIdentity) throws {
        // A thread that is making nothing cannot be waited for, so its wait cannot close a cycle.
        guard let frame else { return }
        let cycle: [ServiceIdentity]? = graph.withLock { graph in
            var hops: [ServiceIdentity] = []
            var target = cell
            var targetService = service
            for _ in 0...graph.waits.count {
                guard let owner = graph.owners[target] else { break }
                if owner.chain === frame.chain {
                    let mine = frame.services(from: target) ?? [owner.service]
                    return mine + hops + [mine[0]]
                }
                guard let wait = graph.waits[ObjectIdentifier(owner.chain)] else { break }
                hops += wait.top.services(from: target) ?? [targetService]
                target = wait.cell
                targetService = graph.owners[target]?.service ?? targetService
            }
            graph.waits[ObjectIdentifier(frame.chain)] = Wait(cell: cell, top: frame)
            return nil
        }
        if let cycle {
            throw ServiceObtainError(service: service, error: ServiceCycleError(cycle: cycle, acrossThreads: true))
        }
    }

    /// Ends a wait recorded by ``beginWait(_:cell:service:)``.
    static func endWait(_ frame: ResolutionFrame?) {
        guard let frame else { return }
        _ = graph.withLock { $0.waits.removeValue(forKey: ObjectIdentifier(frame.chain)) }
    }
}
