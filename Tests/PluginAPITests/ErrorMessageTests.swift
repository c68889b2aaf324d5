@_spi(HostKit) import PluginAPI
import Testing

/// Error descriptions name what a reader needs: keys, types, modules and paths.
@Suite struct ErrorMessageTests {
    /// Each case, with the words its description must contain.
    static let cases: [(error: ServiceLocatorError, mentions: [String])] = [
        (.serviceNotFound(key: "k1", requested: "Mod.Wanted", closeMatches: ["near1", "near2"]),
         ["k1", "Mod.Wanted", "'near1', 'near2'"]),
        (.typeMismatch(key: "k2", registered: "Mod.Held", requested: "Mod.Asked"), ["k2", "Mod.Held", "Mod.Asked"]),
        (.wrongParams(key: "k3", registered: "Swift.String", requested: "Swift.Int"), ["k3", "Swift.String", "Swift.Int"]),
        (.keyAlreadyRegistered(key: "k4", registeredBy: "FirstModule", attemptedBy: "SecondModule"),
         ["k4", "FirstModule", "SecondModule"]),
        (.readOnly(operation: "removeService"), ["removeService", "read-only"]),
        (.cloneDenied, ["clone", "read-only"]),
        (.moduleFailed(module: "BadModule", error: SomeError(code: 8)), ["BadModule", "SomeError(8)"]),
        (.registrationClosed(module: "LateModule"), ["LateModule"]),
    ]

    @Test(arguments: 0..<cases.count)
    func locatorErrorDescriptionMentionsItsPayload(index: Int) {
        let (error, mentions) = Self.cases[index]
        let text = String(describing: error)
        for word in mentions {
            #expect(text.contains(word), "\(text)")
        }
    }

    @Test func notFoundWithoutMatchesHasNoHint() {
        let text = String(describing: ServiceLocatorError.serviceNotFound(key: "k", requested: "T", closeMatches: []))
        #expect(text == "no service for key 'k' (requested T)")
    }

    /// A get by store key alone requests no particular type: "(requested Any)" would be noise.
    @Test func aGetByStoreKeyAloneDoesNotSayItRequestedAny() async {
        let error = await #expect(throws: ServiceLocatorError.self) { try await ServiceLocator().anyService(storeKey: "nobody") }
        #expect(error.map(String.init(describing:)) == "no service for key 'nobody'")
    }

    /// Two types of one name (the signature of a module linked statically into two binaries) are
    /// said to be that, with the module and what to change.
    @Test func aMismatchOfTwoTypesOfOneNameSaysWhatItMeans() {
        let text = String(describing: ServiceLocatorError.typeMismatch(
            key: "weather.service", registered: "WeatherContracts.WeatherService", requested: "WeatherContracts.WeatherService"))
        #expect(text.hasPrefix("key 'weather.service' holds WeatherContracts.WeatherService, and "
            + "WeatherContracts.WeatherService was requested: two different types of one name, so module "
            + "WeatherContracts has two copies in the process"), "\(text)")
        #expect(text.contains("Make WeatherContracts a dynamic library"), "\(text)")
    }

    @Test func realTypeMismatchNamesBothTypes() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget("shared"), service: Widget(serial: 0))

        let error = try #require(expectLocatorError(.typeMismatch(key: "shared", registered: TypeNames.widget,
                                                                   requested: TypeNames.greeter)) {
            try locator.tryService(key: Keys.greeter("shared"))
        })
        #expect(String(describing: error)
            == "key 'shared' holds PluginAPITests.Widget, but PluginAPITests.Greeter was requested")
    }

    @Test func obtainErrorDescriptionShowsThePath() throws {
        let locator = ServiceLocator()
        try locator.addLazyService(key: Keys.widget("A")) { try locator.tryService(key: Keys.widget("B")) }
        try locator.addLazyService(key: Keys.widget("B")) { throw SomeError(code: 3) }

        let nested = try #require(expectObtainError { try locator.tryService(key: Keys.widget("A")) })
        #expect(nested.description == "making B (PluginAPITests.Widget) failed: SomeError(3) "
            + "(path: A (PluginAPITests.Widget) -> B (PluginAPITests.Widget))")
        #expect(nested.fatalMessage.hasPrefix("Failed to obtain service A (PluginAPITests.Widget): "))

        let direct = try #require(expectObtainError { try locator.tryService(key: Keys.widget("B")) })
        #expect(direct.description == "making B (PluginAPITests.Widget) failed: SomeError(3)")
    }

    @Test func cycleDescriptionShowsTheCycle() throws {
        let locator = ServiceLocator()
        try locator.addLazyService(key: Keys.widget("A")) { try locator.tryService(key: Keys.widget("A")) }

        let (error, cycle) = try expectCycle { try locator.tryService(key: Keys.widget("A")) }
        let said = String(describing: error.error)
        #expect(said == "dependency cycle: A (PluginAPITests.Widget) -> A (PluginAPITests.Widget)" && cycle.keys == ["A", "A"])
        #expect(error.description.contains(said))
    }
}
