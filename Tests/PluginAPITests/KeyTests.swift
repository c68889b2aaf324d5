import PluginAPI
import Testing

@Suite struct KeyTests {
    @Test func easyKeyIsNamedAfterTheServiceType() {
        #expect(ServiceLocatorEasyKey<Widget>().storeKey == String(reflecting: Widget.self))
        #expect(ServiceLocatorEasyKey<Widget>().storeKey == "PluginAPITests.Widget")
        #expect(ServiceLocatorEasyKey<any Greeter>().storeKey == "PluginAPITests.Greeter")
    }

    @Test func easyKeyTakesAName() {
        #expect(ServiceLocatorEasyKey<Widget>(name: "second").storeKey == "second")
    }

    @Test func paramsEasyKeyIsNamedAfterTheServiceType() {
        #expect(ServiceLocatorParamsEasyKey<Label, String>().storeKey == String(reflecting: Label.self))
        #expect(ServiceLocatorParamsEasyKey<Label, String>(name: "titles").storeKey == "titles")
    }

    @Test func namedKeysGiveOneTypeSeveralSlots() throws {
        let locator = ServiceLocator()
        let english = EnglishGreeter(), french = FrenchGreeter()
        try locator.addService(key: Keys.greeter("en"), service: english)
        try locator.addService(key: Keys.greeter("fr"), service: french)
        try locator.addService(key: Keys.greeter, service: english)

        #expect(try locator.tryService(key: Keys.greeter("en")).greet("Ann") == "Hello, Ann")
        #expect(try locator.tryService(key: Keys.greeter("fr")).greet("Ann") == "Bonjour, Ann")
        #expect(locator.slots.map(\.key) == ["PluginAPITests.Greeter", "en", "fr"])
    }

    @Test func namedParamsKeysGiveOneTypeSeveralSlots() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label("upper")) { Label(text: $0.uppercased(), serial: 0) }
        try locator.addService(key: Keys.label("lower")) { Label(text: $0.lowercased(), serial: 0) }

        #expect(try locator.tryService(key: Keys.label("upper"), params: "Ab").text == "AB")
        #expect(try locator.tryService(key: Keys.label("lower"), params: "Ab").text == "ab")
    }

    /// A key type of one's own (without the SPI this module does not import) gets, read-only and
    /// before, and is held to its type like a ready-made key.
    @Test func aKeyTypeOfYourOwnWorksLikeAnEasyKey() throws {
        struct TenantKey: ServiceLocatorKey {
            typealias Service = Widget
            let tenant: String
            var storeKey: String { "tenant.\(tenant)" }
        }
        let locator = ServiceLocator()
        try locator.addService(key: TenantKey(tenant: "a"), service: Widget(serial: 1))
        try locator.addLazyService(key: TenantKey(tenant: "b")) { Widget(serial: 2) }
        #expect(try locator.tryService(key: TenantKey(tenant: "a")).serial == 1)
        locator.setReadOnly()
        #expect(try locator.tryService(key: TenantKey(tenant: "b")).serial == 2)
        #expect(try locator.tryService(key: ServiceLocatorEasyKey<Widget>(name: "tenant.a")).serial == 1)
        expectLocatorError(.typeMismatch(key: "tenant.a", registered: TypeNames.widget, requested: TypeNames.label)) {
            try locator.tryService(key: ServiceLocatorEasyKey<Label>(name: "tenant.a"))
        }
    }
}
