import FixtureLifecycleSupport
import PluginAPI
import Synchronization

/// Requires `fixture.versioned` and provides two services made from it: `fixture.versioned.user`, a
/// lazy singleton that keeps the version it was first made with (`user of 1`), and
/// `fixture.versioned.user.now`, made at each get through the resolver its registrar lent it. Its
/// hooks report `start user` and `shutdown user`. It also serves one closable pool for every instance
/// of the plugin (a static, as pools often are), and whether it was closed.
struct VersionUser: Plugin {
    static let user = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user")
    static let now = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user.now")
    static let pool = ServiceLocatorEasyKey<any ClosableService>(name: "fixture.versioned.user.pool")
    static let poolState = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user.pool.state")
    static let metadata = PluginMetadata(name: "fixture-versioned-user", version: "1.0.0",
                                         provides: [user, now, pool, poolState], requires: [lifecycleControlKey, versionedKey])
    static let sharedPool = SharedPool()
    let hooks = LifecycleHooks()

    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        try registrar.addLazyService(key: Self.user) { "user of \(try services.tryService(key: versionedKey))" }
        // Captures the registrar itself, as a plugin in Swift 5 language mode may (`registrar.services`
        // in the factory; the registrar's missing Sendable is only a warning there).
        nonisolated(unsafe) let captured = registrar
        try registrar.addService(key: Self.pool, service: Self.sharedPool)
        try registrar.addService(key: Self.poolState, mode: .many) { Self.sharedPool.isClosed ? "closed" : "open" }
        try registrar.addService(key: Self.now, mode: .many) { "user of \(try captured.services.tryService(key: versionedKey))" }
    }

    func start(services: ServiceResolver) async throws {
        hooks.control = services.getService(key: lifecycleControlKey)
        try await hooks.perform("start user")
    }

    func shutdown() async throws {
        try await hooks.perform("shutdown user")
    }
}

/// A closable shared by every instance of the plugin in this image.
final class SharedPool: ClosableService {
    private let closed = Mutex(false)
    var isClosed: Bool { closed.withLock { $0 } }
    func close() async throws { closed.withLock { $0 = true } }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(VersionUser.self) }
