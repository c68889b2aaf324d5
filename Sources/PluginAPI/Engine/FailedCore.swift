/// An `atOne` factory that failed: the failure is remembered and returned on every get.
final class FailedCore<Service: Sendable>: ServiceCore<Service>, @unchecked Sendable {
    // @unchecked: `failure` is immutable; its error is whatever the factory threw, only ever read.
    let failure: ServiceObtainError

    init(_ failure: ServiceObtainError, identity: ServiceIdentity) {
        self.failure = failure
        super.init(identity: identity, mode: .atOne)
    }

    override func obtain() throws -> Service { throw failure }
}
