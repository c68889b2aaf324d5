/// What one slot of a ``ServiceLocator`` holds, for listings and tooling.
///
/// Type names are made when read: making them costs more than registering the slot did, and a host
/// that only compares keys never reads them.
public struct ServiceSlotInfo: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: besides Sendable values it holds metatypes, which are immutable.
    /// The store key.
    public let key: String
    /// How the slot's provider keeps its service (`many` for slots with parameters).
    public let mode: ServiceFactoryMode
    /// The module that added the slot, or `nil` if it was added directly.
    public let origin: String?
    /// True if the slot's factory is `async`: get it with ``ServiceResolver/tryServiceAsync(key:)``.
    public let isAsync: Bool
    let service: Any.Type
    let params: Any.Type?

    /// The full name of the service type the slot was made for.
    public var serviceType: String { TypeName.of(service) }
    /// The full name of the parameters type, for slots with parameters.
    public var paramsType: String? { params.map(TypeName.of) }

    init(key: String, service: Any.Type, params: Any.Type?, mode: ServiceFactoryMode, origin: String?, isAsync: Bool) {
        self.key = key
        self.service = service
        self.params = params
        self.mode = mode
        self.origin = origin
        self.isAsync = isAsync
    }

    /// `'key': Type [mode] from origin`, as listings show a slot.
    public var description: String {
        return "'\(key)': \(Self.signature(serviceType, params: paramsType)) [\(isAsync ? "async " : "")\(mode)]" + (origin.map { " from \($0)" } ?? "")
    }

    /// `Type`, or `(Params) -> Type` for a slot with parameters, `async` before it for an async slot:
    /// how listings and errors write a slot's types.
    static func signature(_ service: String, params: String?, isAsync: Bool = false) -> String {
        (isAsync ? "async " : "") + (params.map { "(\($0)) -> " } ?? "") + service
    }
}
