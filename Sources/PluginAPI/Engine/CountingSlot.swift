/// A slot of a locator with ``ServiceMetrics``: it counts each get of the slot it wraps, then makes
/// the request there. Only a counting locator makes one, so the slots of any other locator, and the
/// path of their gets, are as they were: no load, no branch (BENCHMARKS.md, round 15).
///
/// It serves requests itself (``served()`` is itself), and hands each to the wrapped slot's served
/// slot (a ``DeferredSlot`` builds its own on first use). Gets are counted, providers are not (a
/// provider makes and hands out services on its own; its services made are counted by the factory's
/// ``CountingLogger``).
final class CountingSlot: AnySlot, @unchecked Sendable {
    // @unchecked: its two properties are immutable and Sendable (AnySlot says why a subclass cannot be checked).
    private let inner: AnySlot
    private let counters: any ServiceSlotCounters

    init(_ inner: AnySlot, counters: any ServiceSlotCounters) {
        self.inner = inner
        self.counters = counters
        super.init(key: inner.key, service: inner.serviceMetatype, mode: inner.mode, origin: inner.origin)
    }

    override var paramsMetatype: Any.Type? { inner.paramsMetatype }
    override var isAsync: Bool { inner.isAsync }
    override var servedIfBuilt: AnySlot? { inner.servedIfBuilt }
    override var existingService: Any? { inner.existingService }

    override func service<S>(as type: S.Type) throws -> S {
        try counting { try inner.servedSlot.service(as: S.self) }
    }

    override func asyncService<S>(as type: S.Type) async throws -> S {
        try await counting { try await inner.servedSlot.asyncService(as: S.self) }
    }

    override func service<S, P>(as type: S.Type, params: P) throws -> S {
        try counting { try inner.servedSlot.service(as: S.self, params: params) }
    }

    override func anyService() throws -> Any {
        try counting { try inner.servedSlot.anyService() }
    }

    override func anyService(params: Any) throws -> Any {
        try counting { try inner.servedSlot.anyService(params: params) }
    }

    override func anyServiceAsync() async throws -> Any {
        try await counting { try await inner.servedSlot.anyServiceAsync() }
    }

    override func provider<S>(as type: S.Type) throws -> ServiceProvider<S> {
        try inner.servedSlot.provider(as: S.self)
    }

    override func asyncProvider<S>(as type: S.Type) throws -> ServiceAsyncProvider<S> {
        try inner.servedSlot.asyncProvider(as: S.self)
    }

    override func paramsProvider<S, P>(as type: S.Type, params: P.Type) throws -> ServiceParamsProvider<S, P> {
        try inner.servedSlot.paramsProvider(as: S.self, params: P.self)
    }

    /// `body`'s result, counted as a get: `got` if it returns, `failed` if it throws.
    private func counting<R>(_ body: () throws -> R) throws -> R {
        do {
            let result = try body()
            counters.got()
            return result
        } catch {
            counters.failed()
            throw error
        }
    }

    /// ``counting(_:)`` for a get that awaits.
    private func counting<R>(_ body: () async throws -> R) async throws -> R {
        do {
            let result = try await body()
            counters.got()
            return result
        } catch {
            counters.failed()
            throw error
        }
    }
}
