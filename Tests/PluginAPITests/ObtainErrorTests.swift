import PluginAPI
import Testing

/// Which service failed, why, and on what path.
@Suite struct ObtainErrorTests {
    private let keyA = Keys.widget("A"), keyB = Keys.widget("B"), keyC = Keys.widget("C")

    @Test func directFailureIsNotNested() throws {
        let locator = ServiceLocator()
        try locator.addLazyService(key: keyA) { throw SomeError(code: 1) }

        let error = try #require(expectObtainError { try locator.tryService(key: keyA) })
        #expect(error.error as? SomeError == SomeError(code: 1))
        #expect(!error.isNested)
        #expect(names(error.service, key: "A", type: Widget.self))
        #expect(error.pathServices.map(\.description) == [error.service.description])
    }

    @Test(arguments: [ServiceFactoryMode.lazy, .weak, .many])
    func nestedFailureNamesTheFailingServiceAndThePath(mode: ServiceFactoryMode) throws {
        let locator = ServiceLocator()
        let keyB = keyB
        try locator.addService(key: keyA, mode: mode) { try locator.tryService(key: keyB) }
        try locator.addService(key: keyB, mode: mode) { throw SomeError(code: 2) }

        let error = try #require(expectObtainError { try locator.tryService(key: keyA) })
        #expect(error.error as? SomeError == SomeError(code: 2))
        #expect(error.isNested)
        #expect(error.service.key == "B")
        #expect(error.service.typeName == TypeNames.widget)
        #expect(error.pathServices.map(\.description) == ["A (\(TypeNames.widget))", "B (\(TypeNames.widget))"])
    }

    @Test func pathLeadsThroughEveryDependency() throws {
        let locator = ServiceLocator()
        let keyB = keyB, keyC = keyC
        try locator.addLazyService(key: keyA) { try locator.tryService(key: keyB) }
        try locator.addService(key: keyB) { try locator.tryService(key: keyC) }
        try locator.addService(key: keyC, service: Widget(serial: 0), replace: false)
        try locator.addLazyService(key: keyC, replace: true) { throw SomeError(code: 3) }

        let error = try #require(expectObtainError { try locator.tryService(key: keyA) })
        #expect(error.pathKeys == ["A", "B", "C"])
        #expect(error.error as? SomeError == SomeError(code: 3))
    }

    @Test func failedAtOneDependencyIsNestedToo() throws {
        let locator = ServiceLocator()
        let keyB = keyB
        try locator.addService(key: keyB, factory: WidgetFactory(mode: .atOne, failures: 1))
        try locator.addLazyService(key: keyA) { try locator.tryService(key: keyB) }

        let error = try #require(expectObtainError { try locator.tryService(key: keyA) })
        #expect(error.pathKeys == ["A", "B"])
        #expect(error.error as? SomeError == SomeError(code: 1))
    }

    @Test func paramsFailureNamesTheKey() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label) { (_: String) -> Label in throw SomeError() }

        let error = try #require(expectObtainError { try locator.tryService(key: Keys.label, params: "x") })
        #expect(names(error.service, key: Keys.label.storeKey, type: Label.self))
    }

    /// Every `add` form that builds the provider in the locator puts the key into the identity.
    @Test func identityOfALocatorSlotHasItsKey() throws {
        let locator = ServiceLocator()
        let fails: @Sendable () throws -> Widget = { throw SomeError() }
        try locator.addService(key: keyA, factory: WidgetFactory(mode: .lazy, failures: 1))
        try locator.addLazyService(key: keyB, fails)
        try locator.addService(key: keyC, mode: .weak, fails)
        try locator.addService(key: Keys.widget("D"), fails)
        try locator.addService(key: Keys.widget("E"), mode: .atOne, fails)

        for key in ["A", "B", "C", "D", "E"] {
            let error = try #require(expectObtainError { try locator.tryService(key: Keys.widget(key)) })
            #expect(names(error.service, key: key, type: Widget.self))
        }
    }

    /// A provider built on its own has no key, even when a locator slot serves it.
    @Test func identityOfAProviderBuiltAloneHasNoKey() throws {
        let locator = ServiceLocator()
        try locator.addService(key: keyA, provider: ServiceProvider(mode: .lazy) { throw SomeError() })

        let error = try #require(expectObtainError { try locator.tryService(key: keyA) })
        #expect(names(error.service, type: Widget.self))
    }

    /// An identity says `key (Type)`, or only the type when there is no key or the key is the type's name.
    @Test func identityDescription() throws {
        let locator = ServiceLocator()
        let named = ServiceLocatorEasyKey<Widget>()
        for key in [keyA, named] { try locator.addLazyService(key: key) { throw SomeError() } }
        let identities = try [keyA, named].map { key in try #require(expectObtainError { try locator.tryService(key: key) }).service }
        let alone = try #require(expectObtainError { try ServiceProvider<Widget>(mode: .lazy) { throw SomeError() }.getService() })
        #expect(identities.map(\.description) == ["A (PluginAPITests.Widget)", "PluginAPITests.Widget"])
        #expect(alone.service.description == "PluginAPITests.Widget" && alone.service.key == nil)
    }
}
