import Foundation
@_spi(HostKit) import PluginAPI
import Testing

/// A resolver lent to one plugin reads only the keys it was granted (PH-0031): every kind of get,
/// the introspection, and a get by store key.
@Suite struct GrantTests {
    private let required = ServiceLocatorEasyKey<Int>(name: "grant.required")
    private let own = ServiceLocatorEasyKey<Int>(name: "grant.own")
    private let other = ServiceLocatorEasyKey<Int>(name: "grant.other")
    private let params = ServiceLocatorParamsEasyKey<String, Int>(name: "grant.params")
    private let asynchronous = ServiceLocatorEasyKey<Int>(name: "grant.async")

    /// A read-only locator with the five keys, a logger of its failed gets, and a resolver lent to
    /// `plugin-x` granted `required` and `own`.
    private func lent() throws -> (ServiceLocator, ServiceResolver, FailedGets) {
        let failed = FailedGets()
        let locator = ServiceLocator(logger: failed)
        try locator.addService(key: required, service: 1)
        try locator.addService(key: own, service: 2)
        try locator.addService(key: other, service: 3)
        try locator.addService(key: params) { (number: Int) in "\(number)" }
        try locator.addAsyncService(key: asynchronous, mode: .lazy) { 5 }
        locator.setReadOnly(denyClone: false)
        let resolver = ServiceResolver(source: ServiceSource(locator), lentTo: "plugin-x",
                                       granting: [required.storeKey, own.storeKey])
        return (locator, resolver, failed)
    }

    @Test func grantedKeysAreServedAsTheLocatorServesThem() throws {
        let (_, resolver, failed) = try lent()
        #expect(try resolver.tryService(key: required) == 1)
        #expect(try resolver.tryService(key: own) == 2)
        #expect(resolver.getService(key: own) == 2)
        #expect(try resolver.tryServiceProvider(key: required).getService() == 1)
        #expect(failed.operations.isEmpty)
    }

    /// Every get of a key outside the grant fails with `notGranted`, naming the plugin and the key,
    /// and is logged as a failed get; the key's slot exists and is untouched.
    @Test func everyKindOfGetOfAnotherKeyIsNotGranted() async throws {
        let (locator, resolver, failed) = try lent()
        let refusal = { (key: String) in LocatorFailure.notGranted(key: key, plugin: "plugin-x") }
        expectLocatorError(refusal(other.storeKey)) { try resolver.tryService(key: other) }
        expectLocatorError(refusal(other.storeKey)) { try resolver.tryServiceProvider(key: other) }
        expectLocatorError(refusal(other.storeKey)) { try resolver.tryServiceAsyncProvider(key: other) }
        expectLocatorError(refusal(params.storeKey)) { try resolver.tryService(key: params, params: 1) }
        expectLocatorError(refusal(params.storeKey)) { try resolver.tryServiceProvider(key: params) }
        #expect(resolver.getService(key: other) == nil)
        for key in [asynchronous, other] {
            let error = await #expect(throws: ServiceLocatorError.self) { _ = try await resolver.tryServiceAsync(key: key) }
            #expect(error?.failure == refusal(key.storeKey))
        }
        let error = await #expect(throws: ServiceLocatorError.self) { _ = try await resolver.anyService(storeKey: other.storeKey) }
        #expect(error?.failure == refusal(other.storeKey))
        #expect(failed.operations.filter { $0 == "get '\(other.storeKey)'" }.count == 6)
        #expect(try locator.tryService(key: other) == 3)
    }

    /// A key outside the grant is refused whether or not a slot has it: the refusal says what to
    /// declare, not what the host serves. A granted key with no slot is not found, as ever.
    @Test func aMissingKeyIsNotGrantedUnlessGrantedThenNotFound() throws {
        let (_, resolver, _) = try lent()
        let missing = ServiceLocatorEasyKey<Int>(name: "grant.missing")
        expectLocatorError(.notGranted(key: missing.storeKey, plugin: "plugin-x")) { try resolver.tryService(key: missing) }
        let grantedButMissing = ServiceResolver(source: ServiceSource(ServiceLocator()), lentTo: "plugin-y",
                                                granting: [missing.storeKey])
        let error = #expect(throws: ServiceLocatorError.self) { try grantedButMissing.tryService(key: missing) }
        guard case .serviceNotFound? = error else {
            Issue.record("expected serviceNotFound, got \(String(describing: error))")
            return
        }
    }

    /// The resolver shows only the slots it may read.
    @Test func introspectionShowsOnlyGrantedSlots() throws {
        let (locator, resolver, _) = try lent()
        #expect(resolver.slots.map(\.key) == [own.storeKey, required.storeKey])
        #expect(resolver.slotInfo(forKey: other.storeKey) == nil)
        #expect(resolver.slotInfo(forKey: required.storeKey)?.key == required.storeKey)
        #expect(locator.slots.count == 5)
    }

    /// A locator's own resolver, and one lent without a grant, read every key (a host's get, and
    /// `addModule` outside a host).
    @Test func aResolverWithoutAGrantReadsEveryKey() throws {
        let (locator, _, _) = try lent()
        let ungranted = ServiceResolver(source: ServiceSource(locator))
        #expect(try ungranted.tryService(key: other) == 3)
        #expect(ungranted.slots.count == 5)
    }

    /// The refusal tells the plugin's author what to do.
    @Test func theRefusalSaysWhatToDeclare() {
        let text = ServiceLocatorError.notGranted(key: "sample.clock", plugin: "greeter").description
        #expect(text.contains("plugin 'greeter' may not get 'sample.clock'"))
        #expect(text.contains("add 'sample.clock' to its metadata's `requires`"))
    }

    /// A host hands a resolver a plugin's keys as declared (unsorted; a key both required and
    /// provided would be there twice): each is granted once, in any order, and nothing beside.
    @Test func keysGrantedOutOfOrderAndTwiceAreEachGrantedOnce() throws {
        let (locator, _, _) = try lent()
        let resolver = ServiceResolver(source: ServiceSource(locator), lentTo: "plugin-y",
                                       granting: [own.storeKey, required.storeKey, own.storeKey])
        #expect(try resolver.tryService(key: required) == 1)
        #expect(try resolver.tryService(key: own) == 2)
        #expect(resolver.slots.map(\.key) == [own.storeKey, required.storeKey])
        expectLocatorError(LocatorFailure.notGranted(key: other.storeKey, plugin: "plugin-y")) { try resolver.tryService(key: other) }
    }

    /// Many granted keys, some of whose hashes collide in the bits a small table would use: each is
    /// found, and none of a thousand others.
    @Test func aLargeGrantFindsEachKeyAndNoOther() throws {
        let locator = ServiceLocator()
        let granted = (0..<300).map { ServiceLocatorEasyKey<Int>(name: "granted.\($0)") }
        let others = (0..<1000).map { ServiceLocatorEasyKey<Int>(name: "other.\($0)") }
        for (index, key) in (granted + others).enumerated() { try locator.addService(key: key, service: index) }
        locator.setReadOnly(denyClone: false)
        let resolver = ServiceResolver(source: ServiceSource(locator), lentTo: "big", granting: granted.map(\.storeKey))
        for (index, key) in granted.enumerated() { #expect(try resolver.tryService(key: key) == index) }
        #expect(others.allSatisfy { resolver.getService(key: $0) == nil })
    }
}

/// The operations of the failed gets a locator logged.
private final class FailedGets: ServiceLogger, @unchecked Sendable {
    // @unchecked: `logged` is only touched under `lock`.
    private let lock = NSLock()
    private var logged: [String] = []

    func log(_ event: ServiceLogEvent) {
        if case let .failed(operation, _) = event { lock.withLock { logged.append(operation) } }
    }

    var operations: [String] { lock.withLock { logged } }
}
