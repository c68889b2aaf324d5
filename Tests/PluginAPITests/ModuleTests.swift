@_spi(HostKit) import PluginAPI
import Testing

/// A module named after its type, with a greeter that needs a widget from elsewhere.
struct GreetingModule: Module {
    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        try registrar.addLazyService(key: Keys.greeter) {
            _ = try services.tryService(key: Keys.widget)
            return EnglishGreeter()
        }
        try registrar.addService(key: Keys.greeter("fr"), service: FrenchGreeter())
    }
}

/// A module that provides the widget the greeting module needs.
struct WidgetModule: Module {
    let factory = WidgetFactory(mode: .lazy)
    var name: String { "Widgets" }

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Keys.widget, factory: factory)
    }
}

/// Modules add all their slots, or none.
@Suite struct ModuleTests {
    @Test func defaultNameIsTheTypeName() {
        #expect(GreetingModule().name == String(reflecting: GreetingModule.self))
        #expect(GreetingModule().name == "PluginAPITests.GreetingModule")
        #expect(WidgetModule().name == "Widgets")
        // A private type's full name holds an address; its default name must not.
        #expect(HiddenModule().name == "HiddenModule")
    }

    @Test func addModuleAddsEverySlotWithTheModuleAsOrigin() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label) { Label(text: $0, serial: 0) }
        try locator.addModule(GreetingModule())

        #expect(locator.slots.map(\.key) == [Keys.greeter.storeKey, Keys.label.storeKey, "fr"])
        #expect(locator.slots.map(\.origin) == ["PluginAPITests.GreetingModule", nil, "PluginAPITests.GreetingModule"])
        #expect(try locator.tryService(key: Keys.greeter("fr")).greet("Ann") == "Bonjour, Ann")
    }

    /// The greeting module's factory gets the widget module's service when it runs, so the modules
    /// can be added in any order.
    @Test func moduleFactoriesGetServicesOfOtherModules() throws {
        let locator = ServiceLocator()
        let widgets = WidgetModule()
        try locator.addModule(GreetingModule())
        try locator.addModule(widgets)
        #expect(widgets.factory.counter.value == 0)

        #expect(try locator.tryService(key: Keys.greeter).greet("Bob") == "Hello, Bob")
        #expect(widgets.factory.counter.value == 1)
    }

    @Test func registrarNamesItsModuleAndReadsItsLocator() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget, service: Widget(serial: 4))
        let seen = Collector<String>()
        try locator.addModule(ClosureModule(name: "Seen") { registrar in
            seen.append(String(describing: Mirror(reflecting: registrar).descendant("module") ?? "none"))
            seen.append("\(try registrar.services.tryService(key: Keys.widget).serial)")
        })
        #expect(seen.all == ["Seen", "4"])
    }

    /// A factory that captures its registrar (for `registrar.services`) must not keep the locator alive
    /// from one of the locator's own slots: a plugin host waits for a replaced locator to go before it
    /// stops the old version of a plugin. (The resolver is a host's, as a host lends: one this locator
    /// makes for itself reads it, and a factory that captures that one keeps it alive.)
    @Test func aFactoryThatCapturesItsRegistrarKeepsNoLocatorAlive() throws {
        var locator: ServiceLocator? = ServiceLocator()
        weak let watched = locator
        let host = ServiceResolver(source: ServiceSource(ServiceLocator()))
        let module = ClosureModule(name: "Captures") { registrar in
            // As a plugin in Swift 5 language mode may, where the registrar's missing Sendable is a warning.
            nonisolated(unsafe) let captured = registrar
            // `many`: the slot keeps its factory (a lazy one lets it go once the service is made).
            try registrar.addService(key: Keys.widget, mode: .many) { _ = captured.services; return Widget(serial: 1) }
        }
        try locator?.addModule(module, services: host)
        #expect(try locator?.tryService(key: Keys.widget).serial == 1)
        locator = nil
        #expect(watched == nil)
    }

    @Test func moduleThatThrowsLeavesNothingBehind() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label) { Label(text: $0, serial: 0) }
        let before = locator.slots
        let module = ClosureModule(name: "Half") { registrar in
            try registrar.addService(key: Keys.widget("one"), service: Widget(serial: 1))
            try registrar.addLazyService(key: Keys.widget("two")) { Widget(serial: 2) }
            throw SomeError(code: 7)
        }

        let error = expectModuleFailure("Half") { try locator.addModule(module) }
        #expect(error as? SomeError == SomeError(code: 7))
        #expect(locator.slots.map(\.description) == before.map(\.description))
        #expect(locator.getService(key: Keys.widget("one")) == nil)
    }

    @Test func moduleWhoseKeyIsTakenLeavesNothingBehind() throws {
        let locator = ServiceLocator()
        let existing = Widget(serial: 1)
        try locator.addService(key: Keys.widget("taken"), service: existing)
        let before = locator.slots
        let module = ClosureModule(name: "Clash") { registrar in
            try registrar.addService(key: Keys.widget("free"), service: Widget(serial: 2))
            try registrar.addService(key: Keys.widget("taken"), service: Widget(serial: 3))
        }

        let error = expectModuleFailure("Clash") { try locator.addModule(module) }
        let inner = try #require(error as? ServiceLocatorError)
        #expect(inner.failure == .keyAlreadyRegistered(key: "taken", registeredBy: nil, attemptedBy: "Clash"))
        #expect(locator.slots.map(\.description) == before.map(\.description))
        #expect(try locator.tryService(key: Keys.widget("taken")) === existing)
    }

    /// How a module is refused after it added an atOne slot: it throws, one of its later keys is
    /// taken, or the `check` of `addModule` refuses it.
    enum Refusal: CaseIterable { case moduleThrows, keyTaken, checkThrows }

    /// A refused module has run none of its atOne factories (opening a connection, say): they run
    /// only once the whole module is accepted.
    @Test(arguments: Refusal.allCases)
    func aRefusedModuleRunsNoneOfItsAtOneFactories(refusal: Refusal) throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget("taken"), service: Widget(serial: 0))
        let eager = WidgetFactory(mode: .atOne)
        let module = ClosureModule(name: "Eager") { registrar in
            try registrar.addService(key: Keys.widget("eager"), factory: eager)
            try registrar.addService(key: Keys.widget(refusal == .keyTaken ? "taken" : "free"), service: Widget(serial: 1))
            if refusal == .moduleThrows { throw SomeError(code: 1) }
        }

        _ = expectModuleFailure("Eager") {
            try locator.addModule(module) { infos in
                // The atOne slot is described before it is built.
                #expect(infos.map(\.key) == [Keys.widget("eager").storeKey, Keys.widget("free").storeKey])
                #expect(infos.first?.mode == .atOne && infos.first?.serviceType == TypeNames.widget)
                if refusal == .checkThrows { throw SomeError(code: 2) }
            }
        }
        #expect(eager.counter.value == 0)
        #expect(locator.slotInfo(forKey: Keys.widget("eager").storeKey) == nil)
    }

    /// An accepted module's atOne factories run before `addModule` returns, once each, in the order
    /// the module added them.
    @Test func anAcceptedModuleRunsItsAtOneFactoriesInOrder() throws {
        let locator = ServiceLocator()
        let order = Collector<String>()
        let module = ClosureModule(name: "Eager") { registrar in
            for name in ["first", "second", "third"] {
                try registrar.addService(key: Keys.widget(name), mode: .atOne) {
                    order.append(name)
                    return Widget(serial: order.all.count)
                }
            }
        }
        try locator.addModule(module)
        #expect(order.all == ["first", "second", "third"])
        #expect(try locator.tryService(key: Keys.widget("second")).serial == 2)
        #expect(order.all.count == 3)
    }

    @Test func collisionNamesTheModuleThatHoldsTheKey() throws {
        let locator = ServiceLocator()
        try locator.addModule(WidgetModule())

        let error = expectModuleFailure("Other") {
            try locator.addModule(ClosureModule(name: "Other") { try $0.addService(key: Keys.widget, service: Widget(serial: 0)) })
        }
        let inner = try #require(error as? ServiceLocatorError)
        #expect(inner.failure == .keyAlreadyRegistered(key: Keys.widget.storeKey, registeredBy: "Widgets", attemptedBy: "Other"))
        expectLocatorError(.keyAlreadyRegistered(key: Keys.widget.storeKey, registeredBy: "Widgets", attemptedBy: nil)) {
            try locator.addService(key: Keys.widget, service: Widget(serial: 0))
        }
    }

    @Test func moduleRegisteringOneKeyTwiceFailsWhole() throws {
        let locator = ServiceLocator()
        let module = ClosureModule(name: "Twice") { registrar in
            try registrar.addService(key: Keys.widget("first"), service: Widget(serial: 1))
            try registrar.addService(key: Keys.widget("dup"), service: Widget(serial: 2))
            try registrar.addService(key: Keys.widget("dup"), service: Widget(serial: 3))
        }

        let error = expectModuleFailure("Twice") { try locator.addModule(module) }
        let inner = try #require(error as? ServiceLocatorError)
        #expect(inner.failure == .keyAlreadyRegistered(key: "dup", registeredBy: "Twice", attemptedBy: "Twice"))
        #expect(locator.slots.isEmpty)
    }

    /// A module that catches the refusal of a key the locator holds may add it again with `replace`:
    /// the refused add left nothing of the key in the module (not a second add of one key).
    @Test func aKeyRefusedForTheLocatorMayBeAddedAgainWithReplace() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget, service: Widget(serial: 1))
        let module = ClosureModule(name: "Retry") { registrar in
            do {
                try registrar.addService(key: Keys.widget, service: Widget(serial: 2))
                Issue.record("a key the locator holds was staged")
            } catch let error as ServiceLocatorError {
                #expect(error.failure == .keyAlreadyRegistered(key: Keys.widget.storeKey, registeredBy: nil, attemptedBy: "Retry"))
            }
            try registrar.addService(key: Keys.widget, service: Widget(serial: 3), replace: true)
        }
        try locator.addModule(module)
        #expect(try locator.tryService(key: Keys.widget).serial == 3)
        #expect(locator.slotInfo(forKey: Keys.widget.storeKey)?.origin == "Retry")
    }

    @Test func moduleWithReplaceReplacesTakenKeys() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget, service: Widget(serial: 1))
        try locator.addModule(WidgetModule(), replace: true)

        #expect(locator.slotInfo(forKey: Keys.widget.storeKey)?.origin == "Widgets")
        #expect(try locator.tryService(key: Keys.widget).serial == 1)
        #expect(locator.slotInfo(forKey: Keys.widget.storeKey)?.mode == .lazy)
    }

    @Test(arguments: [false, true])
    func registrarKeptPastRegistrationIsClosed(moduleFails: Bool) throws {
        final class Keeper { var registrar: ModuleRegistrar? }
        let locator = ServiceLocator()
        let keeper = Keeper()
        let module = ClosureModule(name: "Keeper") { registrar in
            keeper.registrar = registrar
            if moduleFails { throw SomeError() }
        }
        _ = try? locator.addModule(module)
        let registrar = try #require(keeper.registrar)

        expectLocatorError(.registrationClosed(module: "Keeper")) {
            try registrar.addService(key: Keys.widget, service: Widget(serial: 0))
        }
        #expect(locator.slots.isEmpty)
    }
}

private struct HiddenModule: Module {
    func registerServices(in registrar: ModuleRegistrar) throws {}
}
