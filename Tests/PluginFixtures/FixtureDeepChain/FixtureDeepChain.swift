import PluginAPI

/// 5,000 lazy services, `fixture.deep.0` through `fixture.deep.4999`, each made from the next: no
/// cycle, but getting the first nests 5,000 factories on one thread, deeper than a stack allows.
struct DeepChainPlugin: Plugin {
    static let count = 5000
    static func key(_ index: Int) -> ServiceLocatorEasyKey<Int> { ServiceLocatorEasyKey(name: "fixture.deep.\(index)") }
    static let metadata = PluginMetadata(name: "fixture-deep-chain", version: "1.0.0", provides: (0..<count).map(key))

    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        for index in 0..<Self.count {
            let next = Self.key(index + 1)
            try registrar.addLazyService(key: Self.key(index)) {
                index + 1 < Self.count ? try services.tryService(key: next) + 1 : 0
            }
        }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(DeepChainPlugin.self) }
