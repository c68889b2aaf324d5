import Foundation
@_spi(HostKit) import PluginAPI
import Testing

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
