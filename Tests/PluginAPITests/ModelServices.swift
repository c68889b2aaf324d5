import Foundation
@_spi(HostKit) import PluginAPI
import Testing

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
