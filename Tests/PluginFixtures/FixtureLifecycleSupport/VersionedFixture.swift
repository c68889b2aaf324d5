import PluginAPI

/// The key `fixture.versioned`, which versions 1 and 2 of `fixture-versioned` provide: their version.
public let versionedKey = ServiceLocatorEasyKey<String>(name: "fixture.versioned")
/// A lazy closable of `fixture-versioned` that reports `close versioned <version>` to the control.
public let versionedClosableKey = ServiceLocatorEasyKey<any ClosableService>(name: "fixture.versioned.closable")

/// Made anew at each get by `fixture-versioned` 1 and 2, which first report `use versioned <version>`
/// to the control: a test that counts starts and shutdowns sees whether a get reached a stopped version.
public let versionedUseKey = ServiceLocatorEasyKey<String>(name: "fixture.versioned.use")

/// One version of the plugin `fixture-versioned` (the fixtures FixtureVersionOne, -Two, -Three: one
/// plugin name, one type name, three files). Its hooks report `start versioned <version>` and
/// `shutdown versioned <version>` to the test's control and do what it answers (see LifecycleFixture).
public protocol VersionedFixture: Plugin {
    static var version: String { get }
    var hooks: LifecycleHooks { get }
}

extension VersionedFixture {
    public static var metadata: PluginMetadata {
        PluginMetadata(name: "fixture-versioned", version: "\(version).0.0", provides: [versionedKey, versionedClosableKey, versionedUseKey],
                       requires: [lifecycleControlKey])
    }

    public func registerServices(in registrar: ModuleRegistrar) throws {
        let control = registrar.services.getService(key: lifecycleControlKey)
        try registrar.addService(key: versionedKey, service: Self.version)
        try registrar.addService(key: versionedUseKey) {
            _ = control?("use versioned \(Self.version)")
            return Self.version
        }
        try registrar.addLazyService(key: versionedClosableKey) {
            ReportingClosable(control: control, event: "close versioned \(Self.version)")
        }
    }

    public func start(services: ServiceResolver) async throws {
        hooks.control = services.getService(key: lifecycleControlKey)
        try await hooks.perform("start versioned \(Self.version)")
    }

    public func shutdown() async throws {
        try await hooks.perform("shutdown versioned \(Self.version)")
    }
}
