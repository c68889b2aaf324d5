import PluginAPI
import Testing

/// ``ServiceProvider`` and ``ServiceParamsProvider`` used without a locator.
@Suite struct ProviderTests {
    /// `ServiceProvider(tryFactory:)`: an atOne factory's error is thrown at once, not kept for every
    /// get, wrapped in a `ServiceObtainError` as a get wraps it (ServiceContainerKit 3.0's
    /// behaviour, and what `ServiceFactory.makeService` documents); a working atOne factory runs
    /// once; other modes never throw there.
    @Test func tryFactoryThrowsAnAtOneFailureAtOnce() throws {
        let failing = WidgetFactory(mode: .atOne, failures: 1)
        let error = try #require(throws: ServiceObtainError.self) { try ServiceProvider(tryFactory: failing) }
        #expect(error.error as? SomeError == SomeError(code: 1) && !error.isNested)
        #expect(error.service.typeName == String(reflecting: Widget.self))
        let working = WidgetFactory(mode: .atOne)
        let provider = try ServiceProvider(tryFactory: working)
        #expect(try provider.getService().serial == 1)
        #expect(try provider.getService().serial == 1)
        #expect(working.counter.value == 1)
        let lazy = WidgetFactory(mode: .lazy, failures: 1)
        let later = try ServiceProvider(tryFactory: lazy)
        #expect(lazy.counter.value == 0, "a lazy factory runs at the first get, not here")
        #expect(throws: ServiceObtainError.self) { try later.getService() }
    }

    @Test func providerOfAnInstance() throws {
        let widget = Widget(serial: 1)
        let provider = ServiceProvider(widget)

        #expect(try provider.getService() === widget)
        #expect(provider.getServiceAsOptional() === widget)
        #expect(try provider.getServiceAsResult().get() === widget)
    }

    @Test(arguments: ServiceFactoryMode.allCases)
    func providerOfAFactory(mode: ServiceFactoryMode) throws {
        let factory = WidgetFactory(mode: mode)
        let provider = ServiceProvider(factory: factory)
        #expect(factory.counter.value == (mode == .atOne ? 1 : 0))

        let first = try provider.getService()
        let second = try provider.getService()
        #expect((first === second) == (mode != .many))
        #expect(factory.counter.value == (mode == .many ? 2 : 1))
    }

    @Test(arguments: ServiceFactoryMode.allCases)
    func providerOfAClosure(mode: ServiceFactoryMode) throws {
        let factory = WidgetFactory(mode: mode)
        let provider = ServiceProvider(mode: mode, factory.make)
        #expect(factory.counter.value == (mode == .atOne ? 1 : 0))
        #expect(try provider.getService().serial == 1)
    }

    @Test(arguments: ServiceFactoryMode.allCases)
    func factoryMakesItsProvider(mode: ServiceFactoryMode) throws {
        let factory = WidgetFactory(mode: mode)
        let provider = factory.serviceProvider()
        #expect(try provider.getService().serial == 1)
    }

    @Test func copiesShareTheSingleton() throws {
        let factory = WidgetFactory(mode: .lazy)
        let provider = ServiceProvider(factory: factory)
        let copy = provider

        #expect(try copy.getService() === provider.getService())
        #expect(factory.counter.value == 1)
    }

    @Test func providerWithFixedParams() throws {
        let factory = LabelFactory()
        let provider = ServiceProvider(factory: factory, params: "fixed")

        let first = try provider.getService()
        let second = try provider.getService()
        #expect([first.text, second.text] == ["fixed", "fixed"])
        #expect(first !== second)
    }

    @Test func paramsFactoryMakesItsProviders() throws {
        let factory = LabelFactory()
        let paramsProvider = factory.serviceProvider()
        #expect(try paramsProvider.getService(params: "a").text == "a")

        let fixed = factory.serviceProvider(params: "b")
        #expect(try fixed.getService().text == "b")
        #expect(factory.counter.value == 2)
    }

    @Test func convertFixesTheParams() throws {
        let paramsProvider = ServiceParamsProvider { (text: String) in Label(text: text, serial: 0) }
        let converted = paramsProvider.convert(params: "c")

        #expect(try converted.getService().text == "c")
        #expect(try paramsProvider.getService(params: "d").text == "d")
    }

    @Test func failingProviderReportsTheFailureThreeWays() throws {
        let provider = ServiceProvider<Widget>(mode: .lazy) { throw SomeError(code: 5) }

        let error = try #require(expectObtainError { try provider.getService() })
        #expect(error.error as? SomeError == SomeError(code: 5))
        #expect(names(error.service, type: Widget.self))
        #expect(error.service.key == nil)
        #expect(provider.getServiceAsOptional() == nil)
        let result = provider.getServiceAsResult()
        #expect(throws: ServiceObtainError.self) { try result.get() }
    }

    @Test func paramsProviderReportsTheFailureThreeWays() throws {
        let provider = ServiceParamsProvider { (code: Int) -> Label in
            guard code == 0 else { throw SomeError(code: code) }
            return Label(text: "ok", serial: 0)
        }

        #expect(provider.getServiceAsOptional(params: 0)?.text == "ok")
        #expect(provider.getServiceAsOptional(params: 2) == nil)
        #expect(try provider.getServiceAsResult(params: 0).get().text == "ok")
        let error = try #require(expectObtainError { try provider.getServiceAsResult(params: 3).get() })
        #expect(error.error as? SomeError == SomeError(code: 3))
        #expect(error.service.typeName == TypeNames.label)
    }
}
