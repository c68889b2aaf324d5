/// A slot about to be added: what every `add` call of ``ServiceRegistry`` makes. It is built only
/// after the target has accepted its key, so a refused registration runs no factory.
struct ServiceRegistration {
    typealias Build = (_ origin: String?, _ logger: (any ServiceLogger)?) -> AnySlot

    /// When the slot is built, which depends on what building it runs.
    enum Timing {
        /// Building runs nothing and costs little (an existing provider or instance): when added.
        case whenAdded
        /// Building runs the factory (`atOne`): when added alone; in a module, once the whole module
        /// is accepted, so a refused module has run none of its factories.
        case runsFactory(service: Any.Type, isAsync: Bool)
        /// Building runs nothing, but costs more than the rest of the registration (lazy, weak,
        /// many): on first use (see ``DeferredSlot``).
        case onFirstUse(service: Any.Type, mode: ServiceFactoryMode)
    }

    let key: String
    let timing: Timing
    let build: Build

    init(key: String, timing: Timing = .whenAdded, build: @escaping Build) {
        self.key = key
        self.timing = timing
        self.build = build
    }

    /// A slot of the store key `key` whose services `make` makes, kept as `mode` says.
    init<Service: Sendable>(key: String, mode: ServiceFactoryMode, _ make: @escaping @Sendable () throws -> Service) {
        // Only an atOne factory runs when its slot is built; any other slot can wait for its first use.
        let timing: Timing = mode == .atOne ? .runsFactory(service: Service.self, isAsync: false)
            : .onFirstUse(service: Service.self, mode: mode)
        self.init(key: key, timing: timing) { origin, logger in
            let identity = ServiceIdentity(key: key, type: Service.self)
            let core = ServiceCore.make(mode: mode, identity: identity, logger: logger, make)
            return ServiceSlot(key: key, core: core, origin: origin)
        }
    }

    /// True if building the slot runs its factory.
    var runsFactory: Bool {
        if case .runsFactory = timing { true } else { false }
    }

    /// The slot to store: the built slot, or a stand-in that builds it on first use.
    func makeSlot(origin: String?, logger: (any ServiceLogger)?) -> AnySlot {
        guard case let .onFirstUse(service, mode) = timing else { return build(origin, logger) }
        return DeferredSlot(key: key, service: service, mode: mode, origin: origin, logger: logger, build: build)
    }
}
