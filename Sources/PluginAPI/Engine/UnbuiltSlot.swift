/// An `atOne` slot of a module that is not accepted yet: it describes the slot for a check, and
/// holds the registration that builds it (and runs its factory) once the module is accepted.
final class UnbuiltSlot: AnySlot, @unchecked Sendable {
    // @unchecked: immutable; never handed out (the locator only ever stores the built slot).
    let registration: ServiceRegistration
    private let async: Bool

    init(_ registration: ServiceRegistration, service: Any.Type, isAsync: Bool, origin: String) {
        self.registration = registration
        async = isAsync
        super.init(key: registration.key, service: service, mode: .atOne, origin: origin)
    }

    override var isAsync: Bool { async }
}
