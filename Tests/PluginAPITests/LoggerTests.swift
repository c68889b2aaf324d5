import PluginAPI
import Testing

/// What a locator tells its ``ServiceLogger``.
@Suite struct LoggerTests {
    private let logger = RecordingLogger()

    /// The events so far, as their descriptions.
    private var logged: [String] { logger.events.map(\.description) }

    @Test func registrationsAndCreationsAreLogged() throws {
        let locator = ServiceLocator(logger: logger)
        try locator.addLazyService(key: Keys.widget("lazy")) { Widget(serial: 1) }
        try locator.addService(key: Keys.widget("atOne"), factory: WidgetFactory(mode: .atOne))
        try locator.addService(key: Keys.widget("many")) { Widget(serial: 2) }
        for _ in 0..<2 {
            _ = try locator.tryService(key: Keys.widget("lazy"))
            _ = try locator.tryService(key: Keys.widget("many"))
        }

        #expect(logged == [
            "registered 'lazy': PluginAPITests.Widget [lazy]",
            "made atOne (PluginAPITests.Widget) (atOne)",
            "registered 'atOne': PluginAPITests.Widget [atOne]",
            "registered 'many': PluginAPITests.Widget [many]",
            "made lazy (PluginAPITests.Widget) (lazy)",
            "made many (PluginAPITests.Widget) (many)",
            "made many (PluginAPITests.Widget) (many)",
        ])
        guard case let .made(identity, mode)? = logger.events.last else {
            Issue.record("last event is not .made: \(logged)")
            return
        }
        #expect(names(identity, key: "many", type: Widget.self))
        #expect(mode == .many)
    }

    @Test func failuresAreLogged() throws {
        let locator = ServiceLocator(logger: logger)
        try locator.addLazyService(key: Keys.widget("bad")) { throw SomeError(code: 4) }
        _ = locator.getService(key: Keys.widget("bad"))
        _ = locator.getService(key: Keys.widget("missing"))
        _ = try? locator.addService(key: Keys.widget("bad"), service: Widget(serial: 0))

        #expect(logged.dropFirst() == [
            "making bad (PluginAPITests.Widget) failed: SomeError(4)",
            "get 'bad' failed: making bad (PluginAPITests.Widget) failed: SomeError(4)",
            "get 'missing' failed: no service for key 'missing' (requested PluginAPITests.Widget); slots with that type: 'bad'",
            "add 'bad' failed: key 'bad' is already registered; refused the second registration",
        ])
        guard case let .failed(_, error)? = logger.events.dropFirst().first else {
            Issue.record("no .failed event: \(logged)")
            return
        }
        #expect(error as? SomeError == SomeError(code: 4))
    }

    @Test func removalIsLogged() throws {
        let locator = ServiceLocator(logger: logger)
        try locator.addService(key: Keys.widget, service: Widget(serial: 0))
        try locator.removeService(key: Keys.widget)
        try locator.removeService(key: Keys.widget)

        #expect(logged == ["registered 'PluginAPITests.Widget': PluginAPITests.Widget [atOne]",
                           "removed 'PluginAPITests.Widget'"])
    }

    @Test func readOnlyIsLoggedOnce() throws {
        let locator = ServiceLocator(logger: logger)
        try locator.addService(key: Keys.widget, service: Widget(serial: 0))
        locator.setReadOnly()
        locator.setReadOnly()
        _ = try? locator.removeService(key: Keys.widget)

        #expect(logged.dropFirst() == [
            "read-only with 1 slot(s)",
            "remove 'PluginAPITests.Widget' failed: removeService refused: the locator is read-only",
        ])
        let readOnlyCounts = logger.events.compactMap { event -> Int? in
            if case let .madeReadOnly(count) = event { return count }
            return nil
        }
        #expect(readOnlyCounts == [1])
    }

    @Test func moduleIsLoggedAfterItsSlots() throws {
        let locator = ServiceLocator(logger: logger)
        try locator.addModule(WidgetModule())

        #expect(logged == ["registered 'PluginAPITests.Widget': PluginAPITests.Widget [lazy] from Widgets",
                           "module 'Widgets' added 1 slot(s)"])
        guard case let .moduleAdded(module, keys)? = logger.events.last else {
            Issue.record("last event is not .moduleAdded: \(logged)")
            return
        }
        #expect(module == "Widgets")
        #expect(keys == [Keys.widget.storeKey])
    }

    @Test func failedModuleIsLoggedAsAFailure() throws {
        let locator = ServiceLocator(logger: logger)
        _ = try? locator.addModule(ClosureModule(name: "Broken") { _ in throw SomeError(code: 2) })

        #expect(logged == ["add module 'Broken' failed: module 'Broken' failed, nothing of it was registered: SomeError(2)"])
    }

    @Test func cloneLogsToTheSameLogger() throws {
        let locator = ServiceLocator(logger: logger)
        let clone = try locator.clone()
        try clone.addService(key: Keys.widget("inClone"), service: Widget(serial: 0))

        #expect(logged == ["registered 'inClone': PluginAPITests.Widget [atOne]"])
    }
}
