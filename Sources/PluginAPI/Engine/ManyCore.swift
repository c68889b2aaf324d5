/// A service made anew on every get.
final class ManyCore<Service: Sendable>: ServiceCore<Service>, @unchecked Sendable {
    // @unchecked: immutable; `make` is `@Sendable`.
    let make: @Sendable () throws -> Service
    private let logger: (any ServiceLogger)?

    init(identity: ServiceIdentity, logger: (any ServiceLogger)?, make: @escaping @Sendable () throws -> Service) {
        self.make = make
        self.logger = logger
        super.init(identity: identity, mode: .many)
    }

    override func obtain() throws -> Service {
        try runFactory(self, identity, mode: .many, owned: false, logger: logger, make)
    }
}
