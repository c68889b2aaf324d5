import Foundation
@_spi(HostKit) import PluginAPI
import Testing

/// The subject: a real locator (replaced by its clone on `clone`), the counters of the factories the
/// test registered, and the registrar the last module kept.
final class LocatorHarness {
    private(set) var locator = ServiceLocator()
    private var counters: [Int: Counter] = [:]
    private var keptRegistrar: ModuleRegistrar?

    func observe(_ outcome: ModelOutcome) -> ModelObservation {
        ModelObservation(outcome: outcome, slots: locator.slots.map(ModelSlotRow.init), isReadOnly: locator.isReadOnly,
                         denyClone: locator.denyClone, factoryCalls: counters.compactMapValues { $0.value == 0 ? nil : $0.value })
    }

    func apply(_ operation: ModelOperation) -> ModelOutcome {
        do {
            switch operation {
            case let .add(entry):
                try register(entry, in: locator)
                return .done
            case let .remove(key, kind):
                return .removed(try remove(ModelSpace.kinds[kind], key: key))
            case let .get(key, kind, viaProvider):
                return .service(try get(ModelSpace.kinds[kind], key: key, viaProvider: viaProvider))
            case let .paramsGet(key, kind, params, value, viaProvider):
                return .service(try get(ModelSpace.kinds[kind], ModelSpace.paramsKinds[params], key: key, value: value,
                                        viaProvider: viaProvider))
            case let .anyGet(key):
                let (locator, storeKey) = (locator, ModelSpace.keys[key])
                // Only the tag comes back: the service must be gone when the get is, as after every
                // other get of the model, or a weak slot would hand it out again.
                guard let tag = try waitFor({ (try await locator.anyService(storeKey: storeKey) as? any ModelTagged)?.tag }) else {
                    return .failed(.unexpected("anyService returned a service of another type"))
                }
                return .service(tag)
            case let .setReadOnly(denyClone):
                locator.setReadOnly(denyClone: denyClone)
                return .done
            case .clone:
                locator = try locator.clone()
                return .done
            case let .addModule(spec):
                try addModule(spec)
                return .done
            case let .lateRegistration(entry):
                if let keptRegistrar { try register(entry, in: keptRegistrar) }
                return .done
            }
        } catch {
            return .failed(ModelErrorCase(error))
        }
    }

    private func addModule(_ spec: ModelModuleSpec) throws {
        let module = ClosureModule(name: spec.name) { registrar in
            self.keptRegistrar = registrar
            for (index, entry) in spec.entries.enumerated() {
                if spec.throwsAfter == index { throw ModelError() }
                try self.register(entry, in: registrar)
            }
            if spec.throwsAfter == spec.entries.count { throw ModelError() }
        }
        try locator.addModule(module, replace: spec.replace)
    }

    private func counter(_ registration: Int) -> Counter {
        if let counter = counters[registration] { return counter }
        let counter = Counter()
        counters[registration] = counter
        return counter
    }

    private func register(_ entry: ModelEntry, in registry: some ServiceRegistry) throws {
        try register(ModelSpace.kinds[entry.kind], entry, in: registry)
    }

    private func register<Kind: ModelServiceKind>(_ kind: Kind.Type, _ entry: ModelEntry,
                                                  in registry: some ServiceRegistry) throws {
        let key = ServiceLocatorEasyKey<Kind.Service>(name: ModelSpace.keys[entry.key])
        let counter = counter(entry.registration), registration = entry.registration, replace = entry.replace
        switch entry.form {
        case .instance:
            try registry.addService(key: key, service: Kind.make(ModelTag(registration: registration, serial: 0, params: nil)),
                                    replace: replace)
        case .atOneFactory:
            try registry.addService(key: key, mode: .atOne, replace: replace) {
                Kind.make(ModelTag(registration: registration, serial: counter.increment(), params: nil))
            }
        case .atOneFailing:
            try registry.addService(key: key, mode: .atOne, replace: replace) {
                counter.increment()
                throw ModelError()
            }
        case .lazy:
            try registry.addLazyService(key: key, replace: replace) {
                Kind.make(ModelTag(registration: registration, serial: counter.increment(), params: nil))
            }
        case .lazyFailingOnce:
            try registry.addLazyService(key: key, replace: replace) {
                let serial = counter.increment()
                if serial == 1 { throw ModelError() }
                return Kind.make(ModelTag(registration: registration, serial: serial, params: nil))
            }
        case .weak:
            try registry.addService(key: key, mode: .weak, replace: replace) {
                Kind.make(ModelTag(registration: registration, serial: counter.increment(), params: nil))
            }
        case .many:
            try registry.addService(key: key, replace: replace) {
                Kind.make(ModelTag(registration: registration, serial: counter.increment(), params: nil))
            }
        case .params:
            try registerParams(kind, ModelSpace.paramsKinds[entry.params], entry, counter: counter, in: registry)
        }
    }

    private func registerParams<Kind: ModelServiceKind, Params: ModelParamsKind>(
        _ kind: Kind.Type, _ params: Params.Type, _ entry: ModelEntry, counter: Counter, in registry: some ServiceRegistry
    ) throws {
        let key = ServiceLocatorParamsEasyKey<Kind.Service, Params.Params>(name: ModelSpace.keys[entry.key])
        let registration = entry.registration
        try registry.addService(key: key, replace: entry.replace) { (params: Params.Params) in
            Kind.make(ModelTag(registration: registration, serial: counter.increment(), params: Params.text(params)))
        }
    }

    private func remove<Kind: ModelServiceKind>(_ kind: Kind.Type, key: Int) throws -> Bool {
        try locator.removeService(key: ServiceLocatorEasyKey<Kind.Service>(name: ModelSpace.keys[key]))
    }

    private func get<Kind: ModelServiceKind>(_ kind: Kind.Type, key: Int, viaProvider: Bool) throws -> ModelTag {
        let key = ServiceLocatorEasyKey<Kind.Service>(name: ModelSpace.keys[key])
        if viaProvider { return Kind.tag(of: try locator.tryServiceProvider(key: key).getService()) }
        return Kind.tag(of: try locator.tryService(key: key))
    }

    private func get<Kind: ModelServiceKind, Params: ModelParamsKind>(
        _ kind: Kind.Type, _ params: Params.Type, key: Int, value: Int, viaProvider: Bool
    ) throws -> ModelTag {
        let key = ServiceLocatorParamsEasyKey<Kind.Service, Params.Params>(name: ModelSpace.keys[key])
        if viaProvider { return Kind.tag(of: try locator.tryServiceProvider(key: key).getService(params: Params.value(value))) }
        return Kind.tag(of: try locator.tryService(key: key, params: Params.value(value)))
    }
}

/// The result of `body`, waited for on this thread: the model runs on a thread of its own, outside
/// the pool that runs `body`, and none of its slots is async, so the wait is short.
private func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let outcome = Collector<Result<T, any Error>>()
    Task {
        do { outcome.append(.success(try await body())) } catch { outcome.append(.failure(error)) }
        done.signal()
    }
    done.wait()
    return try outcome.all[0].get()
}
