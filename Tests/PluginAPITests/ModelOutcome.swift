import Foundation
@_spi(HostKit) import PluginAPI
import Testing

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
