@testable import HostKit
import PluginAPI
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
        let meta = PluginMetadata(name: "keys", version: "1", provides: declared)
        let plugin = LoadedPlugin(path: "/plugins/keys.so", descriptor: PluginDescriptor(metadata: meta) { KeysModule(keys: added) },
                                  libraries: [.pluginAPI])
        let locator = ServiceLocator()
        return (locator, PluginRegistration.register(plugin, into: locator))
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

    @Test func aKeyDeclaredTwiceIsAddedOnce() throws {
        let (locator, result) = register(declaring: ["a", "a"], adding: ["a"])
        _ = try result.get()
        #expect(locator.slots.map(\.key) == ["a"])
    }

    @Test func anUndeclaredKeyRefusesTheModuleWhole() {
        let (locator, result) = register(declaring: ["a", "b"], adding: ["a", "b", "extra"])
        #expect(reason(result)?.contains("added but not declared: extra") == true, "\(result)")
        #expect(locator.slotCount == 0)
    }

    @Test func aMissingKeyRefusesTheModuleWhole() {
        let (locator, result) = register(declaring: ["a", "b", "c"], adding: ["c", "a"])
        #expect(reason(result)?.contains("declared but not added: b") == true, "\(result)")
        #expect(locator.slotCount == 0)
    }

    /// As many keys as declared, in the declared positions but one: the order shortcut must not pass it.
    @Test func aSwappedKeyIsNotMistakenForADeclaredOne() {
        let (locator, result) = register(declaring: ["a", "b", "c"], adding: ["a", "b", "x"])
        let text = reason(result) ?? ""
        #expect(text.contains("declared but not added: c") && text.contains("added but not declared: x"), "\(result)")
        #expect(locator.slotCount == 0)
    }
}
