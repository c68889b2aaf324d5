import Foundation
@_spi(HostKit) import PluginAPI
import Testing

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
