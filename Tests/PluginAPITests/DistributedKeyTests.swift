import Distributed
import Foundation
@_spi(HostKit) import PluginAPI
import Synchronization
import Testing

/// A contract as a contract library declares it: a `@Resolvable` protocol that names no actor system.
@Resolvable
protocol Echoer: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
    distributed func echo(_ text: String) -> String
}

/// A service of that contract, on the toolchain's actor system for tests.
distributed actor LocalEchoer: Echoer {
    typealias ActorSystem = LocalTestingDistributedActorSystem
    distributed func echo(_ text: String) -> String { "echo: \(text)" }
}

/// The stub type the keys below name.
typealias EchoerStub = $Echoer<LocalTestingDistributedActorSystem>
/// A stub whose every call goes to a process that is not there.
typealias RemoteEchoerStub = $Echoer<NoPeerActorSystem>

enum DistributedKeys {
    static let echoer = DistributedServiceEasyKey<any Echoer, EchoerStub>(name: "echoer")
    /// The same slot, as a host that serves it from another process declares it.
    static let remoteEchoer = DistributedServiceEasyKey<any Echoer, RemoteEchoerStub>(name: "echoer")
}

/// A distributed key that also takes parameters: only a key type of one's own can be both.
struct DistributedParamsKey: DistributedServiceKey, ServiceLocatorParamsKey {
    typealias Service = any Echoer
    typealias Stub = EchoerStub
    typealias Params = String
    let storeKey: String
    init(name: String = "echoer.params") {
        storeKey = name
    }
}

/// What a host reads of a key: its declaration, as a plugin's metadata makes it.
func declared(_ key: any ServiceLocatorKey) -> DeclaredKey {
    PluginMetadata(name: "declaring", version: "1.0.0", provides: [key]).provides[0]
}

@Suite struct DistributedKeyTests {
    let system = LocalTestingDistributedActorSystem()

    @Test func aDistributedEasyKeyIsNamedAsAnEasyKey() {
        #expect(DistributedServiceEasyKey<any Echoer, EchoerStub>().storeKey
            == ServiceLocatorEasyKey<any Echoer>().storeKey)
        #expect(DistributedServiceEasyKey<any Echoer, EchoerStub>().storeKey == "PluginAPITests.Echoer")
        #expect(DistributedKeys.echoer.storeKey == "echoer")
    }

    /// Registering, getting and declaring: a distributed key is a plain key, and the service handed
    /// out in process is the actor itself.
    @Test func aDistributedKeyIsAPlainKeyToTheLocator() async throws {
        let locator = ServiceLocator()
        let actor = LocalEchoer(actorSystem: system)
        try locator.addService(key: DistributedKeys.echoer, service: actor)
        locator.setReadOnly()
        let echoer = try locator.tryService(key: DistributedKeys.echoer)
        #expect(echoer === actor)
        #expect(try await echoer.echo("hi") == "echo: hi")
        #expect(try locator.tryService(key: ServiceLocatorEasyKey<any Echoer>(name: "echoer")) === actor)
        #expect(locator.slots.first?.mismatch(with: declared(DistributedKeys.echoer)) == nil)
    }

    @Test func aDistributedKeyDeclaresItsStubAndItsNameFindsItAgain() throws {
        let key = declared(DistributedKeys.echoer)
        #expect(key.isDistributed)
        let stub = try #require(key.stubType)
        #expect(ObjectIdentifier(stub) == ObjectIdentifier(EchoerStub.self))
        let name = try #require(key.stubTypeName)
        #expect(name == _mangledTypeName(EchoerStub.self))
        let found = try #require(DeclaredKey.stubType(named: name))
        #expect(ObjectIdentifier(found) == ObjectIdentifier(EchoerStub.self))
    }

    /// Plain keys, and distributed keys declared async or with parameters (which cannot be served
    /// from another process: a distributed service is a plain slot), are not distributed.
    @Test func plainKeysAreNotDistributed() {
        let keys: [any ServiceLocatorKey] = [
            ServiceLocatorEasyKey<Widget>(), ServiceLocatorEasyKey<any Echoer>(name: "echoer"),
            ServiceLocatorParamsEasyKey<Label, String>(), ServiceLocatorEasyKey<Widget>().async, TenantKey(),
            DistributedKeys.echoer.async, DistributedParamsKey(),
        ]
        for key in keys.map(declared) {
            #expect(!key.isDistributed, "\(key)")
            #expect(key.stubType == nil, "\(key)")
            #expect(key.stubTypeName == nil, "\(key)")
        }
    }

    /// Names from another process are untrusted: none but a distributed actor type's finds a type,
    /// and a name the runtime would read as references into memory is refused unread.
    @Test func aNameOfNoDistributedActorFindsNothing() throws {
        let plainType = try #require(_mangledTypeName(Widget.self))
        let actorName = try #require(_mangledTypeName(EchoerStub.self))
        let names = ["", "nonsense", plainType, "\u{01}\u{7F}\u{7F}\u{7F}\u{7F}", "\u{02}abcd" + actorName,
                     actorName + "\u{0}", String(repeating: "Sa", count: 513)]
        for name in names {
            #expect(DeclaredKey.stubType(named: name) == nil, "\(name.debugDescription)")
        }
    }

    /// A name nested 450 deep (an optional of an optional of ... `Int`, 902 bytes) needs
    /// more stack than a small thread has: looked up there, it is refused instead of overflowing the
    /// stack (this test crashed the test process with SIGSEGV before); on a thread with the default
    /// 8 MiB stack it is looked up, and found to be no distributed actor.
    @Test func aDeeplyNestedNameOnASmallStackIsRefusedNotOverflowingIt() async throws {
        let deep = "Si" + String(repeating: "Sg", count: 450)
        #expect(_typeByName(deep) != nil, "the name is a real type: looking it up is what needs the stack")
        #expect(await onThread(stackSize: 256 << 10) { DeclaredKey.stubType(named: deep) == nil })
        #expect(await onThread(stackSize: 8 << 20) { DeclaredKey.stubType(named: deep) == nil })
        let stubName = try #require(_mangledTypeName(EchoerStub.self))
        #expect(await onThread(stackSize: 8 << 20) { DeclaredKey.stubType(named: stubName) != nil })
    }

    /// `body`'s result, run on a new thread with a stack of `stackSize` bytes.
    private func onThread(stackSize: Int, _ body: @escaping @Sendable () -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = stackSize
            thread.start()
        }
    }

    /// The slot of a service in another process: of the key's own service type, so that a requirement
    /// declared with the key is met by it, its proxy made once, on the first get, and handed out as
    /// the contract: a call on it goes to the proxy's actor system.
    @Test func aProxySlotHoldsTheKeysServiceTypeAndMakesItsProxyOnce() async throws {
        let locator = ServiceLocator()
        let made = Atomic(0)
        try declared(DistributedKeys.remoteEchoer).addProxySlot(to: locator, origin: "remote") {
            made.add(1, ordering: .relaxed)
            return try RemoteEchoerStub.resolve(id: "echoer", using: NoPeerActorSystem())
        }
        #expect(made.load(ordering: .relaxed) == 0, "made before its first get")
        let slot = try #require(locator.slots.first)
        #expect(slot.key == "echoer")
        #expect(slot.origin == "remote")
        #expect(slot.mismatch(with: declared(DistributedKeys.echoer)) == nil)
        #expect(slot.mismatch(with: declared(DistributedKeys.echoer.async)) != nil)
        #expect(slot.mismatch(with: declared(ServiceLocatorEasyKey<Widget>(name: "echoer"))) != nil)

        let first = try locator.tryService(key: DistributedKeys.echoer)
        locator.setReadOnly()
        let second = try locator.tryService(key: DistributedKeys.remoteEchoer)
        #expect(first === second)
        #expect(made.load(ordering: .relaxed) == 1)
        #expect(second is RemoteEchoerStub)
        #expect(second.id as? String == "echoer")
        await #expect(throws: NoPeerActorSystem.NoPeer.self) { try await second.echo("there") }
    }

    /// Through a module's registrar, the slot of proxies is the module's, added once the module is
    /// accepted, as any slot of it.
    @Test func aProxySlotAddedThroughARegistrarIsTheModules() throws {
        let locator = ServiceLocator()
        let module = ClosureModule(name: "remote-module") { registrar in
            try declared(DistributedKeys.remoteEchoer).addProxySlot(to: registrar, origin: "ignored") {
                try RemoteEchoerStub.resolve(id: "echoer", using: NoPeerActorSystem())
            }
        }
        try locator.addModule(module)
        let slot = try #require(locator.slots.first)
        #expect(slot.origin == "remote-module")
        #expect(slot.mismatch(with: declared(DistributedKeys.echoer)) == nil)
        #expect(try locator.tryService(key: DistributedKeys.echoer) is RemoteEchoerStub)
    }

    /// A host remakes a key from its declaration's key type and store key: the same key.
    @Test func aDistributedKeyIsMadeAgainFromItsTypeAndName() throws {
        let key = declared(DistributedKeys.remoteEchoer)
        let type = try #require(key.distributedKeyType)
        let remade = declared(type.init(name: key.storeKey))
        #expect(remade.storeKey == "echoer")
        #expect(remade.distributedKeyType.map(ObjectIdentifier.init) == ObjectIdentifier(type))
        #expect(remade.stubType.map(ObjectIdentifier.init) == ObjectIdentifier(RemoteEchoerStub.self))
        #expect(declared(ServiceLocatorEasyKey<Widget>()).distributedKeyType == nil)
    }

    @Test func aProxyOfAnotherTypeFailsTheGetByName() throws {
        let locator = ServiceLocator()
        try declared(DistributedKeys.echoer).addProxySlot(to: locator, origin: "remote") { Widget(serial: 1) }
        let error = expectObtainError { try locator.tryService(key: DistributedKeys.echoer) }
        let failure = (error?.error as? ServiceLocatorError)?.failure
        #expect(failure == .wrongProxyType(key: "echoer", proxy: TypeNames.widget, service: "PluginAPITests.Echoer"),
                "\(String(describing: error))")
        #expect("\(String(describing: error))".contains(
            "the proxy made for key 'echoer' is \(TypeNames.widget), which is not PluginAPITests.Echoer"))
    }

    /// A distributed service is a plain slot: a plain key, an async one or one with parameters gets
    /// no proxy slot, and nothing is added.
    @Test func keysThatCannotHoldAProxyAreRefused() {
        let refused: [(any ServiceLocatorKey, String)] = [
            (ServiceLocatorEasyKey<any Echoer>(name: "echoer"), "with a plain key"),
            (DistributedKeys.echoer.async, "declared async"),
            (DistributedParamsKey(), "declared with parameters"),
        ]
        for (key, reason) in refused {
            let locator = ServiceLocator()
            let error = expectLocatorError(.proxySlotRefused(key: key.storeKey)) {
                try declared(key).addProxySlot(to: locator, origin: "remote") { LocalEchoer(actorSystem: system) }
            }
            #expect("\(String(describing: error))".contains(reason), "\(String(describing: error))")
            #expect(locator.slots.isEmpty)
        }
    }

    @Test func aProxySlotForATakenKeyIsRefusedNamingItsOrigin() throws {
        let locator = ServiceLocator()
        try locator.addService(key: DistributedKeys.echoer, service: LocalEchoer(actorSystem: system))
        expectLocatorError(.keyAlreadyRegistered(key: "echoer", registeredBy: nil, attemptedBy: "remote")) {
            try declared(DistributedKeys.echoer).addProxySlot(to: locator, origin: "remote") { Widget(serial: 1) }
        }
    }
}

/// A key type of one's own, neither ready-made nor distributed.
private struct TenantKey: ServiceLocatorKey {
    typealias Service = Widget
    var storeKey: String { "tenant" }
}
