@testable import HostKit
@_spi(HostKit) import PluginAPI
import Testing

/// A plugin's module is held to the keys its plugin declares, in any order; on descriptors made in
/// the test (no library is opened), so each case can add exactly the keys it needs.
@Suite struct PluginRegistrationTests {
    /// A module that adds a lazy `Int` slot for each of `keys`, in that order.
    struct KeysModule: Module {
        let keys: [String]
        func registerServices(in registrar: ModuleRegistrar) throws {
            for (index, key) in keys.enumerated() {
                try registrar.addLazyService(key: ServiceLocatorEasyKey<Int>(name: key)) { index }
            }
        }
    }

    func register(declaring declared: [String], adding added: [String]) -> (ServiceLocator, Result<ModuleHandle, PluginLoadError>) {
        register(PluginMetadata(name: "keys", version: "1", provides: declared.map(ServiceLocatorEasyKey<Int>.init(name:))),
                 adding: added)
    }

    func register(_ meta: PluginMetadata, adding added: [String], into locator: ServiceLocator = ServiceLocator())
        -> (ServiceLocator, Result<ModuleHandle, PluginLoadError>) {
        let plugin = LoadedPlugin(path: "/plugins/keys.so", metadata: meta, libraries: [.pluginAPI]) { KeysModule(keys: added) }
        return (locator, PluginRegistration.register(plugin, into: locator, source: ServiceSource(locator), logs: nil, settings: nil))
    }

    /// The reason of a refused registration, or nil if it succeeded.
    func reason(_ result: Result<ModuleHandle, PluginLoadError>) -> String? {
        guard case let .failure(.registrationFailed(plugin, reason)) = result, plugin == "keys" else { return nil }
        return reason
    }

    @Test(arguments: [["a", "b", "c"], ["c", "a", "b"]])
    func theDeclaredKeysInAnyOrderAreAccepted(added: [String]) throws {
        let (locator, result) = register(declaring: ["a", "b", "c"], adding: added)
        _ = try result.get()
        #expect(locator.slots.map(\.key) == ["a", "b", "c"])
    }

    @Test func aSlotOfAnotherTypeThanDeclaredRefusesTheModuleWhole() {
        let meta = PluginMetadata(name: "keys", version: "1", provides: [ServiceLocatorEasyKey<Int>(name: "a"),
                                                                         ServiceLocatorEasyKey<String>(name: "b")])
        for added in [["a", "b"], ["b", "a"]] {
            let (locator, result) = register(meta, adding: added)
            #expect(reason(result) == "key 'b': the slot holds Swift.Int, Swift.String is declared", "\(result)")
            #expect(locator.slots.count == 0)
        }
    }

    /// The requirement is checked against the slot that meets it, before the module runs.
    @Test func aRequirementMetByASlotOfAnotherTypeIsRefusedNamingBothTypes() throws {
        let locator = ServiceLocator()
        try locator.addService(key: ServiceLocatorEasyKey<String>(name: "clock"), service: "not a clock")
        let meta = PluginMetadata(name: "keys", version: "1", provides: [ServiceLocatorEasyKey<Int>(name: "a")],
                                  requires: [ServiceLocatorEasyKey<Double>(name: "clock")])
        let (_, result) = register(meta, adding: ["a"], into: locator)
        guard case let .failure(error) = result else {
            Issue.record("expected a refusal, got \(result)")
            return
        }
        #expect(error.description == "plugin 'keys': requires key 'clock' (provided by 'host'), "
            + "but the slot holds Swift.String, Swift.Double is declared")
        #expect(locator.slots.map(\.key) == ["clock"])
    }

    /// Whether a slot is async is part of its shape: a requirement declared plain is refused by an
    /// async slot, and one declared `.async` is met by it.
    @Test func aRequirementDeclaredPlainIsRefusedByAnAsyncSlot() throws {
        let locator = ServiceLocator()
        let connection = ServiceLocatorEasyKey<Int>(name: "connection")
        try locator.addAsyncService(key: connection, mode: .lazy) { 1 }
        let plain = PluginMetadata(name: "keys", version: "1", provides: [ServiceLocatorEasyKey<Int>(name: "a")],
                                   requires: [connection])
        let (_, refused) = register(plain, adding: ["a"], into: locator)
        guard case let .failure(error) = refused else {
            Issue.record("expected a refusal, got \(refused)")
            return
        }
        #expect(error.description == "plugin 'keys': requires key 'connection' (provided by 'host'), "
            + "but the slot holds async Swift.Int, Swift.Int is declared")
        let async = PluginMetadata(name: "keys", version: "1", provides: [ServiceLocatorEasyKey<Int>(name: "a")],
                                   requires: [connection.async])
        let (_, accepted) = register(async, adding: ["a"], into: locator)
        #expect((try? accepted.get()) != nil, "\(accepted)")
    }

    /// A key with parameters declares their type too.
    @Test func aRequirementWithOtherParametersIsRefusedNamingBoth() throws {
        let locator = ServiceLocator()
        try locator.addService(key: ServiceLocatorParamsEasyKey<Int, String>(name: "count")) { $0.count }
        let meta = PluginMetadata(name: "keys", version: "1", provides: [ServiceLocatorEasyKey<Int>(name: "a")],
                                  requires: [ServiceLocatorParamsEasyKey<Int, Double>(name: "count")])
        let (_, result) = register(meta, adding: ["a"], into: locator)
        guard case let .failure(.requirementTypeMismatch(_, key, _, reason)) = result else {
            Issue.record("expected a type mismatch, got \(result)")
            return
        }
        #expect(key == "count")
        #expect(reason == "the slot holds (Swift.String) -> Swift.Int, (Swift.Double) -> Swift.Int is declared")
    }

    /// The origin of the slots is the plugin's metadata name, whatever the module says its name is.
    @Test func theOriginIsThePluginsNameNotTheModules() throws {
        struct Impostor: Module {
            var name: String { "clock" }
            func registerServices(in registrar: ModuleRegistrar) throws {
                try registrar.addService(key: ServiceLocatorEasyKey<Int>(name: "a"), service: 1)
            }
        }
        let meta = PluginMetadata(name: "honest", version: "1", provides: [ServiceLocatorEasyKey<Int>(name: "a")])
        let plugin = LoadedPlugin(path: "/plugins/honest.so", metadata: meta, libraries: [.pluginAPI]) { Impostor() }
        let locator = ServiceLocator()
        _ = try PluginRegistration.register(plugin, into: locator, source: ServiceSource(locator), logs: nil, settings: nil).get()
        #expect(locator.slots.map(\.origin) == ["honest"])
    }

    @Test func anUndeclaredKeyRefusesTheModuleWhole() {
        let (locator, result) = register(declaring: ["a", "b"], adding: ["a", "b", "extra"])
        #expect(reason(result)?.contains("added but not declared: extra") == true, "\(result)")
        #expect(locator.slots.count == 0)
    }

    @Test func aMissingKeyRefusesTheModuleWhole() {
        let (locator, result) = register(declaring: ["a", "b", "c"], adding: ["c", "a"])
        #expect(reason(result)?.contains("declared but not added: b") == true, "\(result)")
        #expect(locator.slots.count == 0)
    }

    /// As many keys as declared, in the declared positions but one: the order shortcut must not pass it.
    @Test func aSwappedKeyIsNotMistakenForADeclaredOne() {
        let (locator, result) = register(declaring: ["a", "b", "c"], adding: ["a", "b", "x"])
        let text = reason(result) ?? ""
        #expect(text.contains("declared but not added: c") && text.contains("added but not declared: x"), "\(result)")
        #expect(locator.slots.count == 0)
    }
}
