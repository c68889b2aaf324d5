import PluginAPI
import Testing

/// Not private: the default name of a private type holds an address (`(unknown context at $…)`).
struct ToolsModule: Module {
    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Keys.widget("b-tool"), mode: .weak) { Widget(serial: 0) }
    }
}

/// ``ServiceLocator/slots`` and ``ServiceLocator/slotInfo(forKey:)``.
@Suite struct IntrospectionTests {
    @Test func slotsListEverySlotSortedByKey() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget("c-many")) { Widget(serial: 0) }
        try locator.addService(key: Keys.label("a-label")) { Label(text: $0, serial: 0) }
        try locator.addModule(ToolsModule())
        try locator.addService(key: Keys.greeter("d-greeter"), service: EnglishGreeter())

        let slots = locator.slots
        #expect(slots.map(\.key) == ["a-label", "b-tool", "c-many", "d-greeter"])
        #expect(slots.map(\.serviceType) == [TypeNames.label, TypeNames.widget, TypeNames.widget, TypeNames.greeter])
        #expect(slots.map(\.paramsType) == [TypeNames.string, nil, nil, nil])
        #expect(slots.map(\.mode) == [.many, .weak, .many, .atOne])
        #expect(slots.map(\.origin) == [nil, "PluginAPITests.ToolsModule", nil, nil])
    }

    /// A slot names its types as `String(reflecting:)` does (the locator writes the name itself, without
    /// that function's conformance checks): generic, nested, optional, existential and function types.
    @Test func slotTypesAreNamedAsStringReflectingNamesThem() throws {
        let locator = ServiceLocator()
        try locator.addService(key: ServiceLocatorEasyKey<Box<Widget>.Inner>(name: "nested")) { Box<Widget>.Inner() }
        try locator.addService(key: ServiceLocatorEasyKey<[String: Int?]>(name: "dictionary")) { [:] }
        try locator.addService(key: ServiceLocatorEasyKey<any Greeter & Sendable>(name: "existential")) { EnglishGreeter() }
        try locator.addService(key: ServiceLocatorParamsEasyKey<Int, @Sendable (Int) -> String>(name: "function")) { _ in 0 }
        let types = Dictionary(uniqueKeysWithValues: locator.slots.map { ($0.key, ($0.serviceType, $0.paramsType)) })
        #expect(types["nested"]?.0 == String(reflecting: Box<Widget>.Inner.self))
        #expect(types["nested"]?.0 == "PluginAPITests.Box<PluginAPITests.Widget>.Inner")
        #expect(types["dictionary"]?.0 == String(reflecting: [String: Int?].self))
        #expect(types["existential"]?.0 == String(reflecting: (any Greeter & Sendable).self))
        #expect(types["function"]?.0 == String(reflecting: Int.self))
        #expect(types["function"]?.1 == String(reflecting: (@Sendable (Int) -> String).self))
    }

    @Test func slotInfoForKey() throws {
        let locator = ServiceLocator()
        try locator.addLazyService(key: Keys.widget) { Widget(serial: 0) }

        let info = try #require(locator.slotInfo(forKey: Keys.widget.storeKey))
        #expect(info.key == Keys.widget.storeKey)
        #expect(info.serviceType == TypeNames.widget)
        #expect(info.paramsType == nil)
        #expect(info.mode == .lazy)
        #expect(info.origin == nil)
        #expect(locator.slotInfo(forKey: "missing") == nil)
    }

    @Test func slotInfoDescription() throws {
        let locator = ServiceLocator()
        try locator.addModule(ClosureModule(name: "Texts") { registrar in
            try registrar.addService(key: Keys.label("l")) { Label(text: $0, serial: 0) }
        })
        try locator.addLazyService(key: Keys.widget("w")) { Widget(serial: 0) }

        let label = try #require(locator.slotInfo(forKey: "l"))
        #expect(label.description == "'l': (Swift.String) -> PluginAPITests.Label [many] from Texts")
        let widget = try #require(locator.slotInfo(forKey: "w"))
        #expect(widget.description == "'w': PluginAPITests.Widget [lazy]")
    }
}

/// A generic type with a nested one, for the names of slot types.
struct Box<Content> {
    struct Inner {}
}
