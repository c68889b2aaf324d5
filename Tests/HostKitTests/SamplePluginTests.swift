import HostKit
import PluginAPI
import SampleContracts
import TestSupport
import Testing

@Suite struct SamplePluginTests {
    @Test func loadsEverySamplePluginIntoAReadOnlyLocator() throws {
        let host = PluginHost()
        let report = host.load(BuiltPlugins.samples)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(Set(report.loadedNames) == ["clock", "greeter", "notes", "account"])
        // In the order of their files' names, each after the plugins whose keys it requires.
        #expect(host.startedPlugins == ["account", "clock", "greeter", "notes"])
        let locator = host.locator
        #expect(locator.isReadOnly)
        #expect(locator.slots.map(\.key) == ["sample.account", "sample.archive", "sample.clock", "sample.greeter",
                                             "sample.greeting", "sample.journal", "sample.notebook",
                                             "sample.request-id", "sample.sessions"])
        let origins = Dictionary(uniqueKeysWithValues: locator.slots.map { ($0.key, $0.origin) })
        #expect(origins == ["sample.account": "account", "sample.archive": "notes", "sample.clock": "clock",
                            "sample.greeter": "greeter", "sample.greeting": "greeter", "sample.journal": "notes",
                            "sample.notebook": "notes", "sample.request-id": "notes", "sample.sessions": "account"])
        #expect(locator.slotInfo(forKey: "sample.greeter")?.mode == .lazy)
        #expect(locator.slotInfo(forKey: "sample.greeting")?.paramsType == "Swift.String")
        #expect(locator.slotInfo(forKey: "sample.archive")?.isAsync == true)
        #expect(locator.slotInfo(forKey: "sample.account")?.isAsync == false)
        host.shutdown()
    }

    @Test func contractTypesCastAcrossThePluginBoundary() throws {
        let host = PluginHost()
        host.load(BuiltPlugins.samples)
        let locator = host.locator
        // `any Greeter` made in one plugin from `any Clock` of another, handed to the host.
        let greeter = try locator.tryService(key: SampleKeys.greeter)
        #expect(greeter.greet("Ada").hasSuffix("Ada!"))
        let greeting = try locator.tryService(key: SampleKeys.greeting, params: "Grace")
        #expect(greeting.recipient == "Grace")
        #expect(greeting.text == greeter.greet("Grace"))
        let clock = try locator.tryService(key: SampleKeys.clock)
        #expect(clock.now() > 1_700_000_000)
        #expect((0..<24).contains(clock.hour()))
    }

    @Test func sampleModesBehaveAsDeclared() throws {
        let host = PluginHost()
        host.load(BuiltPlugins.samples)
        let locator = host.locator
        let first = try locator.tryService(key: SampleKeys.requestID)
        let second = try locator.tryService(key: SampleKeys.requestID)
        #expect(first != second)
        #expect(first.hasPrefix("req-"))
        let notebook = try locator.tryService(key: SampleKeys.notebook)
        notebook.add("one")
        #expect(try locator.tryService(key: SampleKeys.notebook) === notebook)
        #expect(try locator.tryService(key: SampleKeys.notebook).all() == ["one"])
    }

    @Test func theAccountFollowsTheSessionAcrossThePluginBoundary() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("AccountPlugin"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let locator = host.locator
        // A generic PluginAPI type over a contract type, made in the plugin and cast by the host.
        let sessions = try locator.tryService(key: SampleKeys.sessions)
        let guest = try locator.tryService(key: SampleKeys.account)
        #expect(guest.user == "guest")
        sessions.updateSession(UserSession(user: "ada"))
        let ada = try locator.tryService(key: SampleKeys.account)
        #expect(ada.user == "ada")
        #expect(ada !== guest)
        sessions.updateSession(UserSession(user: "guest"))
        let back = try locator.tryService(key: SampleKeys.account)
        #expect(back === guest)
        #expect(back.activations == 2)
    }

    @Test func pluginsRegisterAfterWhatTheyRequireWhateverTheOrderGiven() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("GreeterPlugin")), .file(BuiltPlugins.path("ClockPlugin"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(try host.locator.tryService(key: SampleKeys.greeter).greet("x").contains("x"))
    }

    @Test func aMissingRequirementIsReportedWithTheKey() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("GreeterPlugin")), .file(BuiltPlugins.path("NotesPlugin"))])
        #expect(report.loadedNames == ["notes"])
        let error = try #require(report.problems.first)
        guard case let .missingRequirement(plugin, key, _) = error else {
            Issue.record("expected missingRequirement, got \(error)")
            return
        }
        #expect(plugin == "greeter")
        #expect(key == "sample.clock")
        #expect(host.locator.slotInfo(forKey: "sample.greeter") == nil)
    }

    @Test func theLocatorRefusesChangesAfterLoading() throws {
        let host = PluginHost()
        host.load([.file(BuiltPlugins.path("ClockPlugin"))])
        #expect(throws: ServiceLocatorError.self) {
            try host.locator.addService(key: ServiceLocatorEasyKey<String>(name: "late"), service: "late")
        }
        #expect(host.locator.slotInfo(forKey: "late") == nil)
    }

    @Test func loadingMoreSwapsInANewLocatorAndKeepsTheOldOneIntact() throws {
        let host = PluginHost()
        host.load([.file(BuiltPlugins.path("ClockPlugin")), .file(BuiltPlugins.path("NotesPlugin"))])
        let before = host.locator
        let notebook = try before.tryService(key: SampleKeys.notebook)
        let report = host.load([.file(BuiltPlugins.path("GreeterPlugin"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let after = host.locator
        #expect(before !== after)
        #expect(before.slotInfo(forKey: "sample.greeter") == nil)
        #expect(after.slotInfo(forKey: "sample.greeter") != nil)
        // The clone shares the providers: the notebook held from before is the very same instance.
        #expect(try after.tryService(key: SampleKeys.notebook) === notebook)
        #expect(after.isReadOnly && before.isReadOnly)
    }

    @Test func inspectReadsMetadataWithoutRegistering() throws {
        let plugin = try PluginHost.inspect(BuiltPlugins.path("GreeterPlugin")).get()
        #expect(plugin.libraries == [.pluginAPI, .sampleContracts])
        let meta = plugin.metadata
        #expect(meta.name == "greeter")
        #expect(meta.provides.map(\.storeKey) == ["sample.greeter", "sample.greeting"])
        #expect(meta.requires.map(\.storeKey) == ["sample.clock"])
    }
}
