/// A slot that is registered now and built on first use.
///
/// Building a slot costs more than the rest of a registration: its objects are generic over the
/// service, made by code a plugin calls unspecialized. Yet a lazy, weak or many slot runs nothing
/// before its first get. So the locator keeps this small stand-in, which holds everything a check or
/// a listing reads (key, type, mode, origin), and builds the real slot once, when a get or a provider
/// needs it. A clone shares the stand-in, and so the built slot and its singleton.
final class DeferredSlot: AnySlot, @unchecked Sendable {
    // @unchecked: `build` and `loggerBox` are immutable; `built` is published once.
    private let build: (_ origin: String?, _ logger: (any ServiceLogger)?) -> AnySlot
    private let loggerBox: LoggerBox?
    private let built = PublishedOnce<AnySlot>()

    init(key: String, service: Any.Type, mode: ServiceFactoryMode, origin: String?, logger: (any ServiceLogger)?,
         build: @escaping (_ origin: String?, _ logger: (any ServiceLogger)?) -> AnySlot) {
        self.build = build
        loggerBox = logger.map(LoggerBox.init)
        super.init(key: key, service: service, mode: mode, origin: origin)
    }

    /// The built slot, unretained (this stand-in keeps it), built first if needed. Borrowing it with
    /// `_withUnsafeGuaranteedRef` keeps a get free of a shared reference count and of any `Optional`
    /// of the generic result, whose metadata unspecialized code would look up on every get.
    @inline(__always)
    private var slot: Unmanaged<AnySlot> {
        built.unretained ?? buildSlot()
    }

    /// Builds the slot and publishes it; two threads may both build, the first one published wins
    /// (building runs no factory, so the other is simply dropped).
    @inline(never)
    private func buildSlot() -> Unmanaged<AnySlot> {
        while true {
            if let slot = built.unretained { return slot }
            built.storeIfNil(build(origin, loggerBox?.logger))
        }
    }

    override func service<S>(as type: S.Type) throws -> S {
        try slot._withUnsafeGuaranteedRef { try $0.service(as: S.self) }
    }

    override func anyService() throws -> Any {
        try slot._withUnsafeGuaranteedRef { try $0.anyService() }
    }

    /// Nothing exists before the slot is built, and asking must not build it.
    override var existingService: Any? {
        built.unretained?._withUnsafeGuaranteedRef { $0.existingService }
    }

    override func provider<S>(as type: S.Type) throws -> ServiceProvider<S> {
        try slot._withUnsafeGuaranteedRef { try $0.provider(as: S.self) }
    }
}
