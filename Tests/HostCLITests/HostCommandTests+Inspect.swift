import Foundation
import TestSupport
import Testing

extension HostCommandTests {
    @Test func checkOfGoodPluginsExitsZero() async throws {
        let run = try await host(["check", "--plugins", plugin("ClockPlugin"), "--json"])
        #expect(run.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let plugins = try #require(object?["plugins"] as? [[String: Any]])
        #expect(plugins.map { $0["name"] as? String } == ["clock"])
    }

    @Test func inspectPrintsTheDescriptor() async throws {
        let run = try await host(["inspect", plugin("GreeterPlugin"), "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        #expect(object?["name"] as? String == "greeter")
        #expect(object?["requires"] as? [String] == ["sample.clock"])
        let builtAgainst = try #require(object?["builtAgainst"] as? [String])
        #expect(builtAgainst.count == 2 && builtAgainst[0].hasPrefix("PluginAPI 5.") && builtAgainst[1].hasPrefix("SampleContracts 1."))
    }

    /// A plugin folder as people lay it out: the plugin with the shared libraries it links beside it.
    /// SampleContracts' version as its source declares it (this target links no SampleContracts).
    func sampleContractsVersion() throws -> String {
        let source = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/SamplePlugins/SampleContracts/Version.swift"),
                                encoding: .utf8)
        let match = try #require(source.firstMatch(of: /LibraryVersion\("SampleContracts", ([0-9]+), ([0-9]+), ([0-9]+)\)/))
        return "\(match.1).\(match.2).\(match.3)"
    }

    /// Those are its libraries, not problems (a copy that is not the one the plugin is bound to says
    /// which is); so is a versioned library no plugin of the set links (alone, it is no plugin found).
    @Test func librariesBesideThePluginsAreListedAsLibraries() async throws {
        let folder = try TemporaryFolder()
        try folder.copy("ClockPlugin", as: "libClockPlugin.so")
        try folder.copy("SampleContracts", as: "libSampleContracts.so")
        try folder.copy("PluginAPI", as: "libPluginAPI.so")
        let run = try await host(["check", "--plugins", folder.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("library SampleContracts \(try sampleContractsVersion()) (\(folder.path)/libSampleContracts.so), "
                                    + "linked by clock"), "\(run.output)")
        // The host links PluginAPI: the copy beside the plugin is not the one it is bound to, and says which is.
        let hostsCopy = URL(fileURLWithPath: BuiltPlugins.path("PluginAPI")).resolvingSymlinksInPath().path
        #expect(run.output.contains("library (\(folder.path)/libPluginAPI.so), not used: this load uses PluginAPI 5."), "\(run.output)")
        #expect(run.output.contains("(\(hostsCopy))\n"), "\(run.output)")
        #expect(run.output.contains("1 loaded, 0 problem(s)"), "\(run.output)")
        // Alone, no plugin was found: that fails, as an empty folder does.
        let alone = try await host(["check", "--plugins", folder.file("libSampleContracts.so")])
        #expect(alone.status == 1 && alone.errors.contains("no plugin found"), "\(alone.errors)")
    }

    /// One flag loads a plugin of one's own beside the samples (`--plugins` replaces them).
    @Test func alsoLoadsAPluginBesideTheSamples() async throws {
        let run = try await host(["check", "--also", plugin("FixtureQuietControl"), "--also", plugin("FixtureLifecycleA")])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("6 loaded, 0 problem(s)"), "\(run.output)")
        #expect(run.output.contains("loaded fixture-lifecycle-a 1.0.0"), "\(run.output)")
        #expect(run.output.contains("loaded clock 1.0.0"), "\(run.output)")
    }

    /// A plugin built for other library versions is shown as its file says, with the refusal, exit 1.
    @Test func inspectShowsAPluginTheHostWouldRefuse() async throws {
        let run = try await host(["inspect", plugin("FixtureWrongABI")])
        #expect(run.status == 1)
        #expect(run.output.contains("name:     fixture-wrong-abi"), "\(run.output)")
        #expect(run.output.contains(".0.0, NoSuchContracts 1.0.0"), "\(run.output)")
        #expect(run.output.contains("this host would refuse it"), "\(run.output)")
        #expect(run.errors.contains("libPluginAPI.so): another major version"), "\(run.errors)")
        let json = try await host(["inspect", plugin("FixtureWrongABI"), "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(object?["name"] as? String == "fixture-wrong-abi")
        #expect(object?["loadable"] as? Bool == false)
        #expect((object?["refusal"] as? String)?.contains("another major version") == true, "\(json.output)")
    }

    @Test func inspectOfAFileThatIsNoPluginFailsWithTheReason() async throws {
        let run = try await host(["inspect", plugin("SampleContracts")])
        #expect(run.status == 1)
        #expect(run.errors.contains("libSampleContracts.so: not a plugin, no entry symbol 'swift_plugin_entry'"))
    }

    /// A library the host itself links, among the files it is asked to load (`libPluginActors.so`
    /// beside `host` in a build folder), is a library of the host's, not "not a plugin": the check passes.
    @Test func aLibraryTheHostLinksIsNoProblemOfTheFolder() async throws {
        let actors = "\(BuiltPlugins.directory)/libPluginActors.so"
        let run = try await host(["check", "--plugins", plugin("ClockPlugin"), "--plugins", actors])
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.errors.contains("not a plugin"), "\(run.errors)")
        #expect(run.output.contains("libPluginActors.so), linked by the host"), "\(run.output)")
        // A copy of it is another file, which the host did not map: a versioned library (its symbols
        // say so) that no plugin links, left alone and said so.
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: actors, toPath: folder.file("libPluginActors.so"))
        let copy = try await host(["check", "--plugins", plugin("ClockPlugin"), "--plugins", folder.file("libPluginActors.so")])
        #expect(copy.status == 0, "\(copy.errors)")
        #expect(copy.output.contains("library PluginActors (\(URL(fileURLWithPath: folder.file("libPluginActors.so")).resolvingSymlinksInPath().path)), no plugin here links it"),
                "\(copy.output)")
        // The same bytes under another name are no library that name calls for: not a plugin, and said so.
        try FileManager.default.copyItem(atPath: actors, toPath: folder.file("libRenamed.so"))
        let renamed = try await host(["check", "--plugins", plugin("ClockPlugin"), "--plugins", folder.file("libRenamed.so")])
        #expect(renamed.status == 1 && renamed.errors.contains("libRenamed.so: not a plugin"), "\(renamed.errors)")
    }

    /// The build folder of a plain `swift build` holds, beside the samples, the libraries they and the
    /// host link and a test fixture's contract library that nothing there links: none of them is a
    /// problem of the folder, and listing it succeeds.
    @Test func listingTheBuildFolderSucceeds() async throws {
        let run = try await host(["list", "--plugins", BuiltPlugins.directory])
        #expect(run.status == 0, "\(run.errors)")
        #expect(!run.errors.contains("not a plugin"), "\(run.errors)")
        #expect(run.output.contains("sample.clock"), "\(run.output)")
    }

    @Test func resolveGetsAServiceByItsKey() async throws {
        let run = try await host(["resolve", "sample.request-id", "--plugins", plugin("NotesPlugin")])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("'sample.request-id': Swift.String [many] from notes"))
        #expect(run.output.contains("req-1"))
        let missing = try await host(["resolve", "sample.nothing", "--plugins", plugin("NotesPlugin")])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no service for key 'sample.nothing'"))
    }

    @Test func listReadsTheSearchPathFromTheEnvironment() async throws {
        let run = try await host(["list", "--json"], environment: ["SWIFT_PLUGIN_PATH": "\(plugin("ClockPlugin")):\(plugin("NotesPlugin"))"])
        #expect(run.status == 0, "\(run.errors)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let slots = try #require(object?["slots"] as? [[String: Any]])
        #expect(slots.map { $0["key"] as? String } == ["sample.archive", "sample.clock", "sample.journal", "sample.notebook",
                                                       "sample.request-id"])
        // Typed: a flag is a JSON boolean, an absent value null (not "true", "").
        #expect(slots.first?["async"] as? Bool == true)
        #expect(slots.last?["async"] as? Bool == false)
        #expect(slots.last?["params"] is NSNull)
        #expect(slots.last?["plugin"] as? String == "notes")
        // Each plugin with its grants: the keys it requires and its own (PH-0031), as text too.
        let plugins = try #require(object?["plugins"] as? [[String: Any]])
        let notes = ["sample.archive", "sample.journal", "sample.notebook", "sample.request-id"]
        #expect(plugins.map { $0["grants"] as? [String] } == [["sample.clock"], notes])
        let text = try await host(["list"], environment: ["SWIFT_PLUGIN_PATH": "\(plugin("ClockPlugin")):\(plugin("NotesPlugin"))"])
        let lines = text.output.split(separator: "\n")
        #expect(lines.contains("PLUGIN  MAY GET") && lines.contains("clock   sample.clock"), "\(text.output)")
        #expect(lines.contains("notes   " + notes.joined(separator: ", ")), "\(text.output)")
    }

    /// Every sample key resolves: one with parameters from `--param`, an async one awaited.
    @Test func resolveReachesSlotsWithParametersAndAsyncSlots() async throws {
        let samples = BuiltPlugins.samples.flatMap { source -> [String] in
            guard case let .file(path) = source else { return [] }
            return ["--plugins", path]
        }
        let greeting = try await host(["resolve", "sample.greeting", "--param", "Ada"] + samples)
        #expect(greeting.status == 0, "\(greeting.errors)")
        #expect(greeting.output.contains("Ada"), "\(greeting.output)")
        let archive = try await host(["resolve", "sample.archive"] + samples)
        #expect(archive.status == 0, "\(archive.errors)")
        #expect(archive.output.contains("'sample.archive': SampleContracts.Archive [async lazy] from notes"), "\(archive.output)")
        let noParam = try await host(["resolve", "sample.greeting"] + samples)
        #expect(noParam.status == 1)
        #expect(noParam.errors.contains("the slot takes parameters (Swift.String): pass --param VALUE"), "\(noParam.errors)")
        let json = try await host(["resolve", "sample.greeting", "--param", "Bo", "--json"] + samples)
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(object?["key"] as? String == "sample.greeting" && object?["params"] as? String == "Swift.String")
        #expect((object?["service"] as? String)?.contains("Bo") == true, "\(json.output)")
    }

    /// A load with problems is exit 1 for resolve too, as for every command; the service is still printed.
    @Test func resolveExitsOneWhenTheLoadHadProblems() async throws {
        let run = try await host(["resolve", "sample.request-id", "--plugins", plugin("NotesPlugin"),
                                  "--plugins", plugin("FixtureNullEntry")])
        #expect(run.status == 1)
        #expect(run.output.contains("req-1"), "\(run.output)")
        #expect(run.errors.contains("the plugin entry returned nothing"), "\(run.errors)")
    }

    /// A timeout that rounds to 0 ms (or any below 10 ms) would fail every plugin: a usage error.
    @Test(arguments: [["--bogus"], ["inspect"], ["resolve"], ["list", "extra"], ["--plugins"], ["help", "nope"],
                      ["help", "list", "check"], ["list", "--param", "1"], ["serve", "--json"],
                      ["--probe-timeout", "0.0001"], ["--shutdown-timeout", "0.009"], ["--probe-timeout", "nan"],
                      ["--shutdown-timeout", "0"], ["--probe-timeout", "86401"], ["help", "__serve-plugin"]])
    func usageErrorsExitTwo(_ arguments: [String]) async throws {
        let run = try await host(arguments)
        #expect(run.status == 2)
        #expect(run.errors.contains("for how it goes"), "\(run.errors)")
    }

    /// The shortest timeout is taken, and a run with it reports what happened, not a usage error.
    @Test func theShortestTimeoutIsTaken() async throws {
        let run = try await host(["check", "--probe-timeout", "0.01", "--shutdown-timeout", "0.01",
                                  "--plugins", plugin("ClockPlugin")])
        #expect(run.status != 2, "\(run.errors)")
        #expect(!run.errors.contains("for how it goes"), "\(run.errors)")
    }
}
