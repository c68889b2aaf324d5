import Foundation
@_spi(HostKit) import PluginAPI
import Testing

// A randomized model test: seeded sequences of operations run against the real ServiceLocator and
// against `LocatorModel`, a plain reference model; after every step both must agree on what the step
// returned (a service or the error), on the slot listing, on the read-only state and on how often
// each factory ran.
//
// Replaying a failure: the report names the sequence's seed. Run
//     MODEL_SEED=<seed> swift test --filter ModelTests
// and that seed is the first sequence run (sequence i runs seed MODEL_SEED + i). Without MODEL_SEED
// the seeds start at `ModelTests.defaultSeed`, so every run tests the same sequences.

// MARK: Random numbers

/// SplitMix64: a tiny, seeded, deterministic generator (no system randomness).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<count`; `count` must be positive.
    mutating func below(_ count: Int) -> Int {
        Int(next() % UInt64(count))
    }

    /// True with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    mutating func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[below(items.count)]
    }
}

// MARK: Services and their kinds

/// What every service of the model test carries: which registration made it, which call of that
/// registration's factory (0 for an instance handed in), and the parameters it was made with.
struct ModelTag: Equatable, Sendable, CustomStringConvertible {
    let registration: Int
    let serial: Int
    let params: String?

    var description: String {
        "#\(registration).\(serial)" + (params.map { "(\($0))" } ?? "")
    }
}

protocol ModelTagged: Sendable {
    var tag: ModelTag { get }
}

final class ModelAlpha: ModelTagged {
    let tag: ModelTag
    init(_ tag: ModelTag) { self.tag = tag }
}

/// A value service: a weak slot cannot hold it.
struct ModelBeta: ModelTagged {
    let tag: ModelTag
}

/// One of the service types of the model test, and how to make and read its services.
protocol ModelServiceKind: Sendable {
    associatedtype Service: Sendable
    static func make(_ tag: ModelTag) -> Service
    static func tag(of service: Service) -> ModelTag
}

enum AlphaKind: ModelServiceKind {
    static func make(_ tag: ModelTag) -> ModelAlpha { ModelAlpha(tag) }
    static func tag(of service: ModelAlpha) -> ModelTag { service.tag }
}

enum BetaKind: ModelServiceKind {
    static func make(_ tag: ModelTag) -> ModelBeta { ModelBeta(tag: tag) }
    static func tag(of service: ModelBeta) -> ModelTag { service.tag }
}

/// An existential service type (`any ModelTagged`), holding a class instance.
enum TaggedKind: ModelServiceKind {
    static func make(_ tag: ModelTag) -> any ModelTagged { ModelAlpha(tag) }
    static func tag(of service: any ModelTagged) -> ModelTag { service.tag }
}

/// One of the parameter types of the model test.
protocol ModelParamsKind: Sendable {
    associatedtype Params
    static func value(_ seed: Int) -> Params
    static func text(_ params: Params) -> String
}

enum IntParams: ModelParamsKind {
    static func value(_ seed: Int) -> Int { seed }
    static func text(_ params: Int) -> String { "\(params)" }
}

enum TextParams: ModelParamsKind {
    static func value(_ seed: Int) -> String { "s\(seed)" }
    static func text(_ params: String) -> String { params }
}

/// Optional parameters: a get without parameters passes `nil`.
enum OptionalTextParams: ModelParamsKind {
    static func value(_ seed: Int) -> String? { seed % 3 == 0 ? nil : "s\(seed)" }
    static func text(_ params: String?) -> String { params ?? "nil" }
}

/// What the model test throws from its factories and modules.
struct ModelError: Error, CustomStringConvertible {
    var description: String { "ModelError" }
}

/// The names, types and sizes the operations draw from: few keys and types, so that collisions,
/// type mismatches and wrong parameters happen often.
enum ModelSpace {
    static let keys = (0..<6).map { "k\($0)" }
    static let kinds: [any ModelServiceKind.Type] = [AlphaKind.self, BetaKind.self, TaggedKind.self]
    static let kindNames = ["Alpha", "Beta", "any Tagged"]
    static let serviceTypes = [
        String(reflecting: ModelAlpha.self), String(reflecting: ModelBeta.self), String(reflecting: (any ModelTagged).self),
    ]
    static let paramsKinds: [any ModelParamsKind.Type] = [IntParams.self, TextParams.self, OptionalTextParams.self]
    static let paramsNames = ["Int", "String", "String?"]
    static let paramsTypes = [String(reflecting: Int.self), String(reflecting: String.self), String(reflecting: String?.self)]
    /// The params kind whose parameters are optional.
    static let optionalParams = 2
}

// MARK: Operations

/// How an entry adds its slot.
enum ModelForm: CaseIterable, CustomStringConvertible {
    /// `addService(key:service:)`: an instance made by the test.
    case instance
    /// `addService(key:mode: .atOne)`: the factory runs when the slot is added.
    case atOneFactory
    /// `addService(key:mode: .atOne)` with a factory that throws: every get fails.
    case atOneFailing
    case lazy
    /// A lazy factory that throws on its first call and succeeds on the next.
    case lazyFailingOnce
    case weak
    case many
    /// `addService(key:_:)` with a closure taking parameters.
    case params

    var mode: ServiceFactoryMode {
        switch self {
        case .instance, .atOneFactory, .atOneFailing: .atOne
        case .lazy, .lazyFailingOnce: .lazy
        case .weak: .weak
        case .many, .params: .many
        }
    }

    var description: String {
        switch self {
        case .instance: "instance"
        case .atOneFactory: "atOne"
        case .atOneFailing: "atOne(throws)"
        case .lazy: "lazy"
        case .lazyFailingOnce: "lazy(throws once)"
        case .weak: "weak"
        case .many: "many"
        case .params: "params"
        }
    }
}

/// One slot to add, directly or from a module. `registration` numbers it (and its factory's counter).
struct ModelEntry: CustomStringConvertible {
    let registration: Int
    let key: Int
    let kind: Int
    let form: ModelForm
    /// The params kind, for `.params`.
    let params: Int
    let replace: Bool

    var description: String {
        let params = form == .params ? "(\(ModelSpace.paramsNames[params]))" : ""
        return "\(ModelSpace.keys[key]): \(form)\(params) \(ModelSpace.kindNames[kind]) #\(registration)"
            + (replace ? " replace" : "")
    }
}

/// A module for `addModule`: it registers its entries in order and, with `throwsAfter`, throws once
/// that many are registered.
struct ModelModuleSpec: CustomStringConvertible {
    let name: String
    let entries: [ModelEntry]
    let throwsAfter: Int?
    let replace: Bool

    var description: String {
        "\(name)[\(entries.map(\.description).joined(separator: ", "))]"
            + (throwsAfter.map { " throws after \($0)" } ?? "") + (replace ? " replace" : "")
    }
}

enum ModelOperation: CustomStringConvertible {
    case add(ModelEntry)
    case remove(key: Int, kind: Int)
    /// `tryService(key:)`, or with `viaProvider` `tryServiceProvider(key:)` and then its `getService()`.
    case get(key: Int, kind: Int, viaProvider: Bool)
    case paramsGet(key: Int, kind: Int, params: Int, value: Int, viaProvider: Bool)
    /// `anyService(storeKey:)`.
    case anyGet(key: Int)
    case setReadOnly(denyClone: Bool)
    case clone
    case addModule(ModelModuleSpec)
    /// An add through the registrar a module kept past its registration.
    case lateRegistration(ModelEntry)

    var description: String {
        switch self {
        case let .add(entry): "add \(entry)"
        case let .remove(key, kind): "remove \(ModelSpace.keys[key]) as \(ModelSpace.kindNames[kind])"
        case let .get(key, kind, viaProvider):
            "get \(ModelSpace.keys[key]) as \(ModelSpace.kindNames[kind])" + (viaProvider ? " via its provider" : "")
        case let .paramsGet(key, kind, params, value, viaProvider):
            "get \(ModelSpace.keys[key]) as \(ModelSpace.kindNames[kind]) with \(ModelSpace.paramsNames[params]) \(value)"
                + (viaProvider ? " via its provider" : "")
        case let .anyGet(key): "get \(ModelSpace.keys[key]) as Any"
        case let .setReadOnly(denyClone): "setReadOnly(denyClone: \(denyClone))"
        case .clone: "clone, continue on the clone"
        case let .addModule(spec): "addModule \(spec)"
        case let .lateRegistration(entry): "late registration through a kept registrar: \(entry)"
        }
    }
}

// MARK: Outcomes

/// A ``ServiceLocatorError`` (or another failure) as the model can predict it.
indirect enum ModelErrorCase: Equatable, CustomStringConvertible {
    case serviceNotFound(key: String, closeMatches: [String])
    case typeMismatch(key: String, registered: String, requested: String)
    case wrongParams(key: String, registered: String, requested: String)
    case keyAlreadyRegistered(key: String, registeredBy: String?, attemptedBy: String?)
    case readOnly(operation: String)
    case cloneDenied
    /// `cause` is the locator error inside, or `nil` for the module's own ``ModelError``.
    case moduleFailed(module: String, cause: ModelErrorCase?)
    case registrationClosed(module: String)
    /// A ``ServiceObtainError``: the factory of `key` threw a ``ModelError``.
    case obtainFailed(key: String?)
    /// Anything else: never predicted, so always a disagreement.
    case unexpected(String)

    init(_ error: any Error) {
        switch error {
        case let error as ServiceLocatorError:
            switch error {
            case let .serviceNotFound(key, _, closeMatches): self = .serviceNotFound(key: key, closeMatches: closeMatches)
            case let .typeMismatch(key, registered, requested):
                self = .typeMismatch(key: key, registered: registered, requested: requested)
            case let .wrongParams(key, registered, requested):
                self = .wrongParams(key: key, registered: registered, requested: requested)
            case let .keyAlreadyRegistered(key, registeredBy, attemptedBy):
                self = .keyAlreadyRegistered(key: key, registeredBy: registeredBy, attemptedBy: attemptedBy)
            case let .readOnly(operation): self = .readOnly(operation: operation)
            case .cloneDenied: self = .cloneDenied
            case let .moduleFailed(module, inner):
                self = .moduleFailed(module: module, cause: inner is ModelError ? nil : ModelErrorCase(inner))
            case let .registrationClosed(module): self = .registrationClosed(module: module)
            case .asyncService: self = .unexpected(String(describing: error)) // the model adds no async slot
            case .resolutionTooDeep: self = .unexpected(String(describing: error)) // nor chains of factories
            case .cycle, .injectionFailed: self = .unexpected(String(describing: error)) // nor cycles, nor @Inject
            case .proxySlotRefused, .wrongProxyType: self = .unexpected(String(describing: error)) // nor proxies
            case .notGranted: self = .unexpected(String(describing: error)) // nor lent resolvers
            @unknown default: self = .unexpected(String(describing: error))
            }
        case let error as ServiceObtainError where error.error is ModelError && !error.isNested:
            self = .obtainFailed(key: error.service.key)
        default:
            self = .unexpected(String(describing: error))
        }
    }

    var description: String {
        switch self {
        case let .serviceNotFound(key, closeMatches): "serviceNotFound(\(key), close: \(closeMatches))"
        case let .typeMismatch(key, registered, requested): "typeMismatch(\(key), \(registered) vs \(requested))"
        case let .wrongParams(key, registered, requested): "wrongParams(\(key), \(registered) vs \(requested))"
        case let .keyAlreadyRegistered(key, registeredBy, attemptedBy):
            "keyAlreadyRegistered(\(key), by \(registeredBy ?? "-"), attempted by \(attemptedBy ?? "-"))"
        case let .readOnly(operation): "readOnly(\(operation))"
        case .cloneDenied: "cloneDenied"
        case let .moduleFailed(module, cause): "moduleFailed(\(module): \(cause.map(\.description) ?? "ModelError"))"
        case let .registrationClosed(module): "registrationClosed(\(module))"
        case let .obtainFailed(key): "obtainFailed(\(key ?? "-"))"
        case let .unexpected(text): "unexpected(\(text))"
        }
    }
}

/// What one operation returned.
enum ModelOutcome: Equatable, CustomStringConvertible {
    case done
    case removed(Bool)
    case service(ModelTag)
    case failed(ModelErrorCase)

    var description: String {
        switch self {
        case .done: "done"
        case let .removed(removed): "removed: \(removed)"
        case let .service(tag): "service \(tag)"
        case let .failed(error): "error \(error)"
        }
    }
}

/// One row of the slot listing, comparable.
struct ModelSlotRow: Equatable, CustomStringConvertible {
    let key: String
    let serviceType: String
    let paramsType: String?
    let mode: ServiceFactoryMode
    let origin: String?

    init(_ info: ServiceSlotInfo) {
        self.init(key: info.key, serviceType: info.serviceType, paramsType: info.paramsType, mode: info.mode,
                  origin: info.origin)
    }

    init(key: String, serviceType: String, paramsType: String?, mode: ServiceFactoryMode, origin: String?) {
        self.key = key
        self.serviceType = serviceType
        self.paramsType = paramsType
        self.mode = mode
        self.origin = origin
    }

    var description: String {
        "\(key): \(paramsType.map { "(\($0)) -> " } ?? "")\(serviceType) [\(mode)]\(origin.map { " from \($0)" } ?? "")"
    }
}

/// Everything compared after a step.
struct ModelObservation: Equatable {
    var outcome: ModelOutcome
    var slots: [ModelSlotRow]
    var isReadOnly: Bool
    var denyClone: Bool
    /// How often each registration's factory ran, by registration number (only those that ran).
    var factoryCalls: [Int: Int]

    /// What differs from `model`, in words.
    func differences(from model: ModelObservation) -> [String] {
        var lines: [String] = []
        if outcome != model.outcome { lines.append("returned: locator \(outcome), model \(model.outcome)") }
        if slots != model.slots { lines.append("slots: locator \(slots), model \(model.slots)") }
        if isReadOnly != model.isReadOnly { lines.append("isReadOnly: locator \(isReadOnly), model \(model.isReadOnly)") }
        if denyClone != model.denyClone { lines.append("denyClone: locator \(denyClone), model \(model.denyClone)") }
        if factoryCalls != model.factoryCalls {
            let calls = { (calls: [Int: Int]) in calls.sorted { $0.key < $1.key }.map { "#\($0.key): \($0.value)" } }
            lines.append("factory calls: locator \(calls(factoryCalls)), model \(calls(model.factoryCalls))")
        }
        return lines
    }
}

// MARK: The reference model

/// The locator as plain data: a dictionary of slots, two flags, and the factories' call counts.
struct LocatorModel {
    struct Slot {
        let kind: Int
        let params: Int?
        let form: ModelForm
        let origin: String?
        let registration: Int
        /// The serial of the singleton once made (lazy).
        var made: Int?
    }

    var slots: [Int: Slot] = [:]
    var isReadOnly = false
    var denyClone = false
    var calls: [Int: Int] = [:]
    /// The module that was handed a registrar last (and keeps it), if any.
    var keptRegistrarModule: String?
    /// A deliberate mistake, for the test that checks that a disagreement is found and shrunk.
    var plantedBug = false

    var observation: ModelObservation {
        ModelObservation(outcome: .done, slots: rows, isReadOnly: isReadOnly, denyClone: denyClone, factoryCalls: calls)
    }

    private var rows: [ModelSlotRow] {
        slots.map { key, slot in
            ModelSlotRow(key: ModelSpace.keys[key], serviceType: ModelSpace.serviceTypes[slot.kind],
                         paramsType: slot.params.map { ModelSpace.paramsTypes[$0] }, mode: slot.form.mode,
                         origin: slot.origin)
        }.sorted { $0.key < $1.key }
    }

    mutating func apply(_ operation: ModelOperation) -> ModelOutcome {
        switch operation {
        case let .add(entry):
            if isReadOnly { return .failed(.readOnly(operation: "addService")) }
            if !entry.replace, let existing = slots[entry.key] {
                return .failed(.keyAlreadyRegistered(key: ModelSpace.keys[entry.key], registeredBy: existing.origin,
                                                     attemptedBy: nil))
            }
            slots[entry.key] = build(entry, origin: nil)
            return .done
        case let .remove(key, _):
            if isReadOnly { return .failed(.readOnly(operation: "removeService")) }
            return .removed(slots.removeValue(forKey: key) != nil)
        case let .get(key, kind, viaProvider):
            return get(key: key, kind: kind, params: nil, viaProvider: viaProvider)
        case let .paramsGet(key, kind, params, value, viaProvider):
            return get(key: key, kind: kind, params: (params, value), viaProvider: viaProvider)
        case let .anyGet(key):
            return anyGet(key: key)
        case let .setReadOnly(deny):
            // A second call can only tighten: it turns clone denial on, never off.
            denyClone = isReadOnly ? denyClone || deny : deny
            isReadOnly = true
            return .done
        case .clone:
            // The clone shares each slot's provider, so a singleton made before is still made: the
            // slots carry over as they are.
            if denyClone { return .failed(.cloneDenied) }
            isReadOnly = false
            return .done
        case let .addModule(spec):
            return addModule(spec)
        case .lateRegistration:
            return keptRegistrarModule.map { .failed(.registrationClosed(module: $0)) } ?? .done
        }
    }

    /// The slot `entry` adds; an atOne factory runs now.
    private mutating func build(_ entry: ModelEntry, origin: String?) -> Slot {
        if entry.form == .atOneFactory || entry.form == .atOneFailing { calls[entry.registration, default: 0] += 1 }
        return Slot(kind: entry.kind, params: entry.form == .params ? entry.params : nil, form: entry.form, origin: origin,
                    registration: entry.registration)
    }

    private mutating func addModule(_ spec: ModelModuleSpec) -> ModelOutcome {
        if isReadOnly { return .failed(.readOnly(operation: "addModule")) }
        keptRegistrarModule = spec.name
        var staged: [(key: Int, entry: ModelEntry)] = []
        for (index, entry) in spec.entries.enumerated() {
            if spec.throwsAfter == index { return .failed(.moduleFailed(module: spec.name, cause: nil)) }
            let key = ModelSpace.keys[entry.key]
            if staged.contains(where: { $0.key == entry.key }) {
                return .failed(.moduleFailed(module: spec.name, cause: .keyAlreadyRegistered(
                    key: key, registeredBy: spec.name, attemptedBy: spec.name)))
            }
            if !(entry.replace || spec.replace), let existing = slots[entry.key] {
                return .failed(.moduleFailed(module: spec.name, cause: .keyAlreadyRegistered(
                    key: key, registeredBy: existing.origin, attemptedBy: spec.name)))
            }
            staged.append((entry.key, entry))
        }
        if spec.throwsAfter == spec.entries.count { return .failed(.moduleFailed(module: spec.name, cause: nil)) }
        // Accepted: only now are the slots built (and atOne factories run), in the order added.
        for (key, entry) in staged { slots[key] = build(entry, origin: spec.name) }
        return .done
    }

    /// A get without parameters (`params` nil) or with them, from the locator or from the slot's provider.
    private mutating func get(key: Int, kind: Int, params: (kind: Int, value: Int)?, viaProvider: Bool) -> ModelOutcome {
        let name = ModelSpace.keys[key]
        guard let slot = slots[key] else {
            let close = slots.filter { $0.value.kind == kind }.map { ModelSpace.keys[$0.key] }.sorted()
            return .failed(.serviceNotFound(key: name, closeMatches: close))
        }
        if slot.kind != kind {
            return .failed(.typeMismatch(key: name, registered: ModelSpace.serviceTypes[slot.kind],
                                         requested: ModelSpace.serviceTypes[kind]))
        }
        switch (slot.params, params) {
        case (nil, nil):
            return make(key: key)
        case let (registered?, nil):
            // Optional parameters let a get without them pass `nil`, directly or through a provider.
            guard registered == ModelSpace.optionalParams else {
                return .failed(.wrongParams(key: name, registered: ModelSpace.paramsTypes[registered], requested: "none"))
            }
            return made(slot, params: "nil")
        case let (registered, requested?):
            guard registered == requested.kind else {
                return .failed(.wrongParams(key: name, registered: registered.map { ModelSpace.paramsTypes[$0] } ?? "none",
                                            requested: ModelSpace.paramsTypes[requested.kind]))
            }
            return made(slot, params: ModelSpace.paramsText(requested.kind, requested.value))
        }
    }

    /// `anyService(storeKey:)`: whatever the type; a slot with parameters only if they are optional.
    private mutating func anyGet(key: Int) -> ModelOutcome {
        let name = ModelSpace.keys[key]
        guard let slot = slots[key] else { return .failed(.serviceNotFound(key: name, closeMatches: [])) }
        switch slot.params {
        case nil: return make(key: key)
        case ModelSpace.optionalParams: return made(slot, params: "nil")
        case let registered?:
            return .failed(.wrongParams(key: name, registered: ModelSpace.paramsTypes[registered], requested: "none"))
        }
    }

    /// A get of the slot at `key`, which has no parameters, as its form says.
    private mutating func make(key: Int) -> ModelOutcome {
        guard var slot = slots[key] else { return .failed(.unexpected("model: no slot")) }
        defer { slots[key] = slot }
        let registration = slot.registration
        switch slot.form {
        case .instance:
            return .service(ModelTag(registration: registration, serial: 0, params: nil))
        case .atOneFactory:
            return .service(ModelTag(registration: registration, serial: 1, params: nil))
        case .atOneFailing:
            return .failed(.obtainFailed(key: ModelSpace.keys[key]))
        case .lazy, .lazyFailingOnce:
            if let serial = slot.made, !plantedBug {
                return .service(ModelTag(registration: registration, serial: serial, params: nil))
            }
            calls[registration, default: 0] += 1
            let serial = calls[registration, default: 0]
            if slot.form == .lazyFailingOnce && serial == 1 { return .failed(.obtainFailed(key: ModelSpace.keys[key])) }
            slot.made = serial
            return .service(ModelTag(registration: registration, serial: serial, params: nil))
        case .weak, .many, .params:
            // Weak too: the test never holds a service, so none is alive at the next get.
            return made(slot, params: nil)
        }
    }

    /// A new service from the slot's factory.
    private mutating func made(_ slot: Slot, params: String?) -> ModelOutcome {
        calls[slot.registration, default: 0] += 1
        return .service(ModelTag(registration: slot.registration, serial: calls[slot.registration, default: 0], params: params))
    }
}

extension ModelSpace {
    /// How the service made for params kind `kind` and seed `value` shows its parameters.
    static func paramsText(_ kind: Int, _ value: Int) -> String {
        text(paramsKinds[kind], value)
    }

    private static func text<P: ModelParamsKind>(_ kind: P.Type, _ value: Int) -> String {
        P.text(P.value(value))
    }
}

// MARK: The real locator

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

// MARK: Generating, running and shrinking

/// Makes one sequence of operations from a seed. It keeps a model of its own to aim some gets at slots
/// that exist with the right types (the rest hit any key with any type).
struct ModelGenerator {
    private var random: SplitMix64
    private var model = LocatorModel()
    private var registrations = 0
    private var modules = 0

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func sequence(length: Int) -> [ModelOperation] {
        (0..<length).map { _ in
            let operation = next()
            _ = model.apply(operation)
            return operation
        }
    }

    private mutating func entry() -> ModelEntry {
        registrations += 1
        let forms = ModelForm.allCases
        return ModelEntry(registration: registrations, key: random.below(ModelSpace.keys.count),
                          kind: random.below(ModelSpace.kinds.count), form: forms[random.below(forms.count)],
                          params: random.below(ModelSpace.paramsKinds.count), replace: random.chance(25))
    }

    /// A slot of the generator's model, with or without parameters, if there is one.
    private mutating func pickSlot(withParams: Bool) -> (Int, LocatorModel.Slot)? {
        let candidates = model.slots.filter { ($0.value.params != nil) == withParams }.sorted { $0.key < $1.key }
        return random.pick(candidates).map { ($0.key, $0.value) }
    }

    private mutating func next() -> ModelOperation {
        let keys = ModelSpace.keys.count, kinds = ModelSpace.kinds.count
        let roll = random.below(100)
        switch roll {
        case 0..<28:
            return .add(entry())
        case 28..<36:
            return .remove(key: random.below(keys), kind: random.below(kinds))
        case 36..<57:
            let viaProvider = random.chance(25)
            if random.chance(60), let (key, slot) = pickSlot(withParams: false) {
                return .get(key: key, kind: slot.kind, viaProvider: viaProvider)
            }
            return .get(key: random.below(keys), kind: random.below(kinds), viaProvider: viaProvider)
        case 57..<60:
            return .anyGet(key: random.below(keys))
        case 60..<74:
            let value = random.below(10), viaProvider = random.chance(25)
            if random.chance(60), let (key, slot) = pickSlot(withParams: true), let params = slot.params {
                return .paramsGet(key: key, kind: slot.kind, params: params, value: value, viaProvider: viaProvider)
            }
            return .paramsGet(key: random.below(keys), kind: random.below(kinds),
                              params: random.below(ModelSpace.paramsKinds.count), value: value, viaProvider: viaProvider)
        case 74..<76:
            return .setReadOnly(denyClone: random.chance(50))
        case 76..<83:
            return .clone
        case 83..<97:
            modules += 1
            let entries = (0..<(1 + random.below(3))).map { _ in entry() }
            let throwsAfter = random.chance(35) ? random.below(entries.count + 1) : nil
            return .addModule(ModelModuleSpec(name: "M\(modules)", entries: entries, throwsAfter: throwsAfter,
                                              replace: random.chance(15)))
        default:
            return .lateRegistration(entry())
        }
    }
}

/// A sequence whose locator and model disagreed.
struct ModelFailure: CustomStringConvertible {
    let seed: UInt64
    let sequenceLength: Int
    /// The shortest prefix of the sequence that still disagrees.
    let prefix: [ModelOperation]
    /// The prefix with every operation left out that the disagreement does not need.
    let reduced: [ModelOperation]
    /// What differed after the last operation of `reduced`.
    let differences: [String]

    var description: String {
        let numbered = { (operations: [ModelOperation]) in
            operations.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        }
        return """
        locator and model disagree: seed \(seed) (replay: MODEL_SEED=\(seed) swift test --filter ModelTests)
        shortest failing prefix, \(prefix.count) of \(sequenceLength) operations:
        \(numbered(prefix))
        reduced to \(reduced.count) operations:
        \(numbered(reduced))
        after the last one:
        \(differences.map { "  " + $0 }.joined(separator: "\n"))
        """
    }
}

struct ModelRunner {
    var plantedBug = false

    /// Runs `operations` on a new locator and a new model; the index of the first step after which
    /// they disagree and what differed, or `nil`.
    func firstDisagreement(_ operations: [ModelOperation]) -> (step: Int, differences: [String])? {
        let harness = LocatorHarness()
        var model = LocatorModel()
        model.plantedBug = plantedBug
        for (step, operation) in operations.enumerated() {
            let outcome = model.apply(operation)
            var expected = model.observation
            expected.outcome = outcome
            let actual = harness.observe(harness.apply(operation))
            if actual != expected { return (step, actual.differences(from: expected)) }
        }
        return nil
    }

    /// Runs the sequence of `seed`; on a disagreement, shrinks it.
    func check(seed: UInt64, length: Int) -> ModelFailure? {
        var generator = ModelGenerator(seed: seed)
        let operations = generator.sequence(length: length)
        guard let found = firstDisagreement(operations) else { return nil }
        // The shortest failing prefix, found by running the prefixes from the shortest up: a fresh run
        // of a prefix must fail at its last step too, or the failure depends on more than the steps.
        let prefixLength = (1...(found.step + 1)).first { firstDisagreement(Array(operations.prefix($0))) != nil }
            ?? found.step + 1
        let prefix = Array(operations.prefix(prefixLength))
        // Then leave out, one at a time, each operation the disagreement does not need.
        var reduced = prefix
        var index = reduced.count - 1
        while index >= 0 {
            var candidate = reduced
            candidate.remove(at: index)
            if firstDisagreement(candidate) != nil { reduced = candidate }
            index -= 1
        }
        let differences = firstDisagreement(reduced)?.differences ?? found.differences
        return ModelFailure(seed: seed, sequenceLength: length, prefix: prefix, reduced: reduced, differences: differences)
    }
}

@Suite struct ModelTests {
    static let defaultSeed: UInt64 = 0x5EED_0001
    private let sequences = 3_000
    private let steps = 40

    /// The first seed: `MODEL_SEED` from the environment (decimal or 0x-hex), else ``defaultSeed``.
    private var seedBase: UInt64 {
        guard let text = ProcessInfo.processInfo.environment["MODEL_SEED"] else { return Self.defaultSeed }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        return parsed ?? Self.defaultSeed
    }

    /// The sequences run on a thread of their own: under ThreadSanitizer they take half a minute,
    /// which would hold a thread of the pool the async tests beside them need.
    @Test func locatorAgreesWithTheModel() async {
        let base = seedBase, sequences = sequences, steps = steps
        let failure = await onAThreadOfItsOwn { () -> String? in
            let runner = ModelRunner()
            for index in 0..<sequences {
                if let failure = runner.check(seed: base &+ UInt64(index), length: steps) { return "\(failure)" }
            }
            return nil
        }
        if let failure { Issue.record("\(failure)") }
    }

    /// The checker itself: a model with a planted mistake (a lazy singleton made again on every get)
    /// disagrees, and the failure shrinks to the few operations that show it.
    @Test func aPlantedMistakeIsFoundAndShrunk() throws {
        let runner = ModelRunner(plantedBug: true)
        let failures = (0..<UInt64(200)).lazy.compactMap { runner.check(seed: Self.defaultSeed &+ $0, length: 40) }
        let failure = try #require(failures.first)
        #expect(failure.reduced.count <= 4, "\(failure)")
        #expect(failure.prefix.count >= failure.reduced.count)
        #expect(failure.description.contains("MODEL_SEED=\(failure.seed)"))
        let last = try #require(failure.reduced.last)
        guard case .get = last else {
            Issue.record("the reduced sequence should end with the get that disagrees: \(failure)")
            return
        }
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
