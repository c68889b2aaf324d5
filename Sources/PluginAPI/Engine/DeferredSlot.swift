import Glibc
import Synchronization

/// A slot that is registered now and built on first use.
///
/// Building a slot costs more than the rest of a registration: its objects are generic over the
/// service, made by code a plugin calls unspecialized. Yet a lazy, weak or many slot runs nothing
/// before its first get. So the locator keeps this small stand-in, which holds everything a check or
/// a listing reads (key, type, mode, origin), and builds the real slot once, when a get or a provider
/// needs it. A clone shares the stand-in, and so the built slot and its singleton.
final class DeferredSlot: AnySlot, @unchecked Sendable {
    typealias Build = (_ origin: String?, _ logger: (any ServiceLogger)?) -> AnySlot
    // @unchecked: `build` is touched only by the one thread that moves `phase` from `waiting` to
    // `building`; `built` is published once.
    private let phase = Atomic<UInt8>(BuildPhase.waiting)
    /// Let go of once the slot is built, with what its factory captured (as a made lazy service does).
    private var build: Build?
    private let loggerBox: LoggerBox?
    private let built = PublishedOnce<AnySlot>()

    init(key: String, service: Any.Type, mode: ServiceFactoryMode, origin: String?, logger: (any ServiceLogger)?,
         build: @escaping Build) {
        self.build = build
        loggerBox = logger.map(LoggerBox.init)
        super.init(key: key, service: service, mode: mode, origin: origin)
    }

    /// The built slot, unretained (this stand-in keeps it), built first if needed. Asked for every
    /// request, so this class forwards nothing, and a request it does not know still reaches the
    /// built slot. Borrowing the result with `_withUnsafeGuaranteedRef` keeps a get free of a shared
    /// reference count and of any `Optional` of the generic result, whose metadata unspecialized
    /// code would look up on every get.
    @inline(__always)
    override func served() -> Unmanaged<AnySlot> {
        built.unretained ?? buildSlot()
    }

    /// Nothing exists before the slot is built, and asking must not build it.
    override var servedIfBuilt: AnySlot? {
        built.unretained?.takeUnretainedValue()
    }

    /// Builds the slot, or waits for the thread that builds it. Building runs no factory and takes
    /// no lock, so the wait is short: it yields the processor until the slot is published.
    @inline(never)
    private func buildSlot() -> Unmanaged<AnySlot> {
        if phase.compareExchange(expected: BuildPhase.waiting, desired: BuildPhase.building, ordering: .acquiring).exchanged,
           let build {
            built.storeIfNil(build(origin, loggerBox?.logger))
            self.build = nil
        }
        while true {
            if let slot = built.unretained { return slot }
            sched_yield()
        }
    }
}

private enum BuildPhase {
    static let waiting: UInt8 = 0
    static let building: UInt8 = 1
}
