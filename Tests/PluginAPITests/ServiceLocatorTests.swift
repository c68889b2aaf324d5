import PluginAPI
import Testing

/// The `add`, `remove` and `get` calls of a mutable locator.
@Suite struct ServiceLocatorTests {
    // MARK: Adding

    @Test func addServiceWithProvider() throws {
        let locator = ServiceLocator()
        let english = EnglishGreeter()
        try locator.addService(key: Keys.greeter, provider: ServiceProvider(english))

        #expect(try locator.tryService(key: Keys.greeter) as? EnglishGreeter === english)
        #expect(locator.slotInfo(forKey: Keys.greeter.storeKey)?.mode == .atOne)
    }

    @Test(arguments: ServiceFactoryMode.allCases)
    func addServiceWithFactory(mode: ServiceFactoryMode) throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: mode)
        try locator.addService(key: Keys.widget, factory: factory)
        #expect(factory.counter.value == (mode == .atOne ? 1 : 0))

        let first = try locator.tryService(key: Keys.widget)
        let second = try locator.tryService(key: Keys.widget)
        #expect((first === second) == (mode != .many))
        #expect(factory.counter.value == (mode == .many ? 2 : 1))
        #expect(locator.slotInfo(forKey: Keys.widget.storeKey)?.mode == mode)
    }

    @Test func addServiceWithInstanceIsAtOne() throws {
        let locator = ServiceLocator()
        let widget = Widget(serial: 7)
        try locator.addService(key: Keys.widget, service: widget)

        #expect(try locator.tryService(key: Keys.widget) === widget)
        #expect(locator.slotInfo(forKey: Keys.widget.storeKey)?.mode == .atOne)
    }

    @Test func closureFormsHaveTheirModes() throws {
        let locator = ServiceLocator()
        try locator.addLazyService(key: Keys.widget("lazy")) { Widget(serial: 0) }
        try locator.addService(key: Keys.widget("weak"), mode: .weak) { Widget(serial: 0) }
        try locator.addService(key: Keys.widget("many")) { Widget(serial: 0) }

        for mode in ["lazy", "weak", "many"] {
            #expect(locator.slotInfo(forKey: mode)?.mode.rawValue == mode)
            #expect(try locator.tryService(key: Keys.widget(mode)).serial == 0)
        }
    }

    @Test(arguments: ServiceFactoryMode.allCases)
    func addServiceWithMode(mode: ServiceFactoryMode) throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: mode)
        try locator.addService(key: Keys.widget, mode: mode, factory.make)

        #expect(locator.slotInfo(forKey: Keys.widget.storeKey)?.mode == mode)
        #expect(try locator.tryService(key: Keys.widget).serial == 1)
    }

    @Test func addParamsServiceWithProvider() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label, provider: ServiceParamsProvider { Label(text: "<\($0)>", serial: 0) })

        #expect(try locator.tryService(key: Keys.label, params: "a").text == "<a>")
        let info = try #require(locator.slotInfo(forKey: Keys.label.storeKey))
        #expect(info.paramsType == TypeNames.string)
        #expect(info.mode == .many)
    }

    @Test func addParamsServiceWithFactory() throws {
        let locator = ServiceLocator()
        let factory = LabelFactory()
        try locator.addService(key: Keys.label, factory: factory)

        let first = try locator.tryService(key: Keys.label, params: "a")
        let second = try locator.tryService(key: Keys.label, params: "b")
        #expect([first.text, second.text] == ["a", "b"])
        #expect(first !== second)
        #expect(factory.counter.value == 2)
    }

    @Test func addParamsServiceWithClosure() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label) { Label(text: $0 + $0, serial: 0) }

        #expect(try locator.tryService(key: Keys.label, params: "ab").text == "abab")
        #expect(locator.slotInfo(forKey: Keys.label.storeKey)?.paramsType == TypeNames.string)
    }

    // MARK: Occupied keys and removal

    @Test func addingToAnOccupiedKeyThrowsAndKeepsTheOldSlot() throws {
        let locator = ServiceLocator()
        let old = Widget(serial: 1)
        try locator.addService(key: Keys.widget, service: old)
        let refused = WidgetFactory(mode: .atOne)
        let expected = LocatorFailure.keyAlreadyRegistered(key: Keys.widget.storeKey, registeredBy: nil, attemptedBy: nil)

        expectLocatorError(expected) { try locator.addService(key: Keys.widget, factory: refused) }
        expectLocatorError(expected) { try locator.addLazyService(key: Keys.widget, refused.make) }
        expectLocatorError(expected) { try locator.addService(key: Keys.widget, service: Widget(serial: 2)) }
        expectLocatorError(expected) { try locator.addService(key: Keys.widget, provider: refused.serviceProvider()) }

        #expect(try locator.tryService(key: Keys.widget) === old)
        // `serviceProvider()` ran the atOne factory once; the refused registrations ran none.
        #expect(refused.counter.value == 1)
        #expect(locator.slots.count == 1)
    }

    @Test func addingWithReplaceReplaces() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget, service: Widget(serial: 1))
        try locator.addLazyService(key: Keys.widget, replace: true) { Widget(serial: 2) }

        #expect(try locator.tryService(key: Keys.widget).serial == 2)
        #expect(locator.slotInfo(forKey: Keys.widget.storeKey)?.mode == .lazy)
        #expect(locator.slots.count == 1)
    }

    @Test func removeServiceReportsWhetherThereWasOne() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget, service: Widget(serial: 1))
        try locator.addService(key: Keys.label) { Label(text: $0, serial: 0) }

        #expect(try locator.removeService(key: Keys.widget))
        #expect(try !locator.removeService(key: Keys.widget))
        #expect(try locator.removeService(key: Keys.label))
        #expect(locator.getService(key: Keys.widget) == nil)
        #expect(locator.slots.isEmpty)
        // The key is free again.
        try locator.addService(key: Keys.widget, service: Widget(serial: 3))
        #expect(try locator.tryService(key: Keys.widget).serial == 3)
    }

    // MARK: Getting

    @Test func getServiceIsNilWhereTryServiceThrows() throws {
        let locator = ServiceLocator()
        try locator.addLazyService(key: Keys.widget) { throw SomeError() }

        #expect(locator.getService(key: Keys.widget) == nil)
        let error = try #require(expectObtainError { try locator.tryService(key: Keys.widget) })
        #expect(error.error as? SomeError == SomeError())
        #expect(locator.getService(key: Keys.widget("missing")) == nil)
    }

    @Test func providerFromTheLocatorSharesTheSingleton() throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .lazy)
        try locator.addService(key: Keys.widget, factory: factory)

        let provider = try locator.tryServiceProvider(key: Keys.widget)
        let again = try locator.tryServiceProvider(key: Keys.widget)
        let viaProvider = try provider.getService()
        #expect(try again.getService() === viaProvider)
        #expect(try locator.tryService(key: Keys.widget) === viaProvider)
        #expect(factory.counter.value == 1)
    }

    @Test func paramsGets() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label) { text in
            guard !text.isEmpty else { throw SomeError() }
            return Label(text: text, serial: 0)
        }

        #expect(try locator.tryService(key: Keys.label, params: "a").text == "a")
        let error = try #require(expectObtainError { try locator.tryService(key: Keys.label, params: "") })
        #expect(error.error as? SomeError == SomeError())

        let provider = try locator.tryServiceProvider(key: Keys.label)
        #expect(try provider.getService(params: "b").text == "b")
        #expect(try provider.getService(params: "c").text == "c")
    }

    @Test func concurrentAddsOfOneKeyLetExactlyOneWin() throws {
        let locator = ServiceLocator()
        let winners = Collector<Int>()
        let finished = runOnThreads(8) { index in
            if (try? locator.addService(key: Keys.widget, service: Widget(serial: index))) != nil {
                winners.append(index)
            }
        }
        #expect(finished)
        let winner = try #require(winners.all.first)
        #expect(winners.all.count == 1)
        #expect(try locator.tryService(key: Keys.widget).serial == winner)
    }

    @Test func concurrentAddsOfDistinctKeysAllLand() {
        let locator = ServiceLocator()
        let finished = runOnThreads(8) { index in
            _ = try? locator.addService(key: Keys.widget("w\(index)"), service: Widget(serial: index))
        }
        #expect(finished)
        #expect(locator.slots.map(\.key) == (0..<8).map { "w\($0)" })
    }
}
