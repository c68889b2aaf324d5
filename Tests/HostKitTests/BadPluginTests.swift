import Foundation
import HostKit
import PluginAPI
import SampleContracts
import TestSupport
import Testing

@Suite struct BadPluginTests {
    /// Every kind of bad file at once, next to the good plugins: each gets its own error, the good load.
    @Test func eachBadFileGetsItsOwnErrorAndTheGoodOnesStillLoad() throws {
        let folder = try TemporaryFolder()
        let empty = try folder.write("empty.so", [])
        let text = try folder.write("text.so", Array("just some text, not a library\n".utf8))
        let plugin = try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path("ClockPlugin")))
        let truncated = try folder.write("truncated.so", Array(plugin.prefix(4096)))
        // The program headers' offset (bytes 32-39) far past Int.max: it trapped the check once.
        var farTable = Array(plugin)
        farTable.replaceSubrange(32..<40, with: [0, 0, 0, 0, 0, 0, 0, 0x80])
        let farProgramHeaders = try folder.write("far-headers.so", farTable)
        let randomELF = try folder.write("random.so", [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0]
            + (0..<2000).map { _ in UInt8.random(in: 0...255) })
        try FileManager.default.createDirectory(atPath: "\(folder.path)/dir.so", withIntermediateDirectories: false)
        var sources = BuiltPlugins.samples
        sources += [empty, text, truncated, farProgramHeaders, randomELF, "\(folder.path)/dir.so", "\(folder.path)/missing.so"].map { .file($0) }
        sources += ["FixtureWrongABI", "FixtureOldHeader", "FixtureUnrecordedContracts", "FixtureOwnCopy", "FixtureBadMagic",
                    "FixtureNullEntry", "FixtureThrowingModule", "FixtureDuplicateKey", "FixtureTwiceDeclared",
                    "SampleContracts"].map { .file(BuiltPlugins.path($0)) }
        if let systemLibrary { sources.append(.file(systemLibrary)) }

        let host = PluginHost()
        let report = host.load(sources)

        #expect(Set(report.loadedNames) == ["clock", "greeter", "notes", "account"])
        #expect(try host.locator.tryService(key: SampleKeys.greeter).greet("x").contains("x"))
        // libSampleContracts.so, which the samples link, is listed as their library, not as a problem.
        #expect(report.problems.count == sources.count - BuiltPlugins.samples.count - 1)
        #expect(report.libraries.map { URL(fileURLWithPath: $0.path).lastPathComponent } == ["libSampleContracts.so"])
        // Linked by the samples, and by the refused plugins that link it too (by name, or by file name
        // for one whose metadata was not read): their refusal is the problem, not the library.
        #expect(Set(report.libraries.first?.linkedBy ?? []) == ["clock", "greeter", "notes", "account", "fixture-duplicate-clock",
                                                                "libFixtureUnrecordedContracts.so"])

        func expectCase(_ suffix: String, _ matches: (PluginLoadError) -> Bool) {
            let error = report.error(for: suffix)
            #expect(error.map(matches) == true, "\(suffix): \(String(describing: error))")
        }
        expectCase("empty.so") { if case .notASharedLibrary = $0 { true } else { false } }
        expectCase("text.so") { if case .notASharedLibrary = $0 { true } else { false } }
        expectCase("truncated.so") {
            if case let .notASharedLibrary(_, reason) = $0 { reason.contains("truncated") } else { false }
        }
        expectCase("far-headers.so") {
            if case let .notASharedLibrary(_, reason) = $0 { reason.contains("program headers lie outside the file") } else { false }
        }
        expectCase("random.so") { if case .notASharedLibrary = $0 { true } else { false } }
        expectCase("dir.so") { if case let .notARegularFile(_, kind) = $0 { kind == "a directory" } else { false } }
        expectCase("missing.so") { if case .notFound = $0 { true } else { false } }
        let next = "\(LibraryVersion.pluginAPI.major + 1).0.0"
        expectCase("libFixtureWrongABI.so") {
            $0 == .incompatibleLibraries(path: $0.subject, mismatches: [
                .version(library: "PluginAPI", plugin: next, host: "\(LibraryVersion.pluginAPI)",
                         file: BuiltPlugins.realPath("PluginAPI")),
                .unknown(library: "NoSuchContracts", plugin: "1.0.0")])
        }
        expectCase("libFixtureOwnCopy.so") {
            $0 == .incompatibleLibraries(path: $0.subject, mismatches: [.ownCopy(library: "SampleContracts", carrier: "libFixtureOwnCopy.so")])
        }
        expectCase("libFixtureOldHeader.so") { $0 == .unsupportedHeader(path: $0.subject, format: 3) }
        expectCase("libFixtureUnrecordedContracts.so") {
            $0 == .incompatibleLibraries(path: $0.subject, mismatches: [
                .unrecorded(library: "SampleContracts", host: "\(LibraryVersion.sampleContracts)")])
        }
        expectCase("libFixtureBadMagic.so") { if case let .badMagic(_, found) = $0 { found == 0xDEAD_BEEF } else { false } }
        expectCase("libFixtureNullEntry.so") { if case .entryReturnedNothing = $0 { true } else { false } }
        expectCase("fixture-throwing") {
            if case let .registrationFailed(_, reason) = $0 { reason.contains("fixture.conf") } else { false }
        }
        expectCase("fixture-duplicate-clock") {
            if case let .keyConflict(key, _, owner) = $0 { key == "sample.clock" && owner == "clock" } else { false }
        }
        expectCase("libFixtureTwiceDeclared.so") {
            if case let .malformedMetadata(_, reason) = $0 { reason == "'provides' lists key 'fixture.twice' twice" } else { false }
        }
        if let systemLibrary {
            let name = URL(fileURLWithPath: systemLibrary).resolvingSymlinksInPath().lastPathComponent
            // Not built by a Swift toolchain and with no entry symbol: refused before `dlopen` runs any
            // of its code, as what it is, no plugin (not as a plugin of another compiler).
            expectCase(name) { if case .missingEntrySymbol = $0 { true } else { false } }
        }
    }

    @Test func aModuleThatThrowsHalfwayLeavesNothingBehind() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("FixtureThrowingModule"))])
        #expect(report.loaded.isEmpty)
        #expect(host.locator.slotInfo(forKey: "fixture.first") == nil)
        #expect(host.locator.slots.isEmpty)
    }

    @Test func theLaterOfTwoPluginsWithOneKeyIsRefusedWhole() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("ClockPlugin")), .file(BuiltPlugins.path("FixtureDuplicateKey"))])
        #expect(report.loadedNames == ["clock"])
        // The first provider's clock stays: a real clock, not the fixture's stopped one.
        #expect(try host.locator.tryService(key: SampleKeys.clock).now() > 0)
        let error = try #require(report.problems.first)
        #expect(error.description.contains("sample.clock"))
        #expect(error.description.contains("clock"))
    }

    /// A slot of another type under a required key does not meet the requirement: the plugin that
    /// requires it is refused before its module runs, naming the key, both types and the provider by
    /// its metadata name (not the name its module claims).
    @Test func aRequirementMetByAnotherTypeIsRefusedNamingBothTypes() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("FixtureStringClock")), .file(BuiltPlugins.path("GreeterPlugin"))])
        #expect(report.loadedNames == ["fixture-string-clock"])
        let error = try #require(report.error(for: "greeter"))
        #expect(error == .requirementTypeMismatch(plugin: "greeter", key: "sample.clock", providedBy: "fixture-string-clock",
                                                  reason: "the slot holds Swift.String, SampleContracts.Clock is declared"))
        #expect(host.locator.slotInfo(forKey: SampleKeys.greeter.storeKey) == nil)
        #expect(host.locator.slotInfo(forKey: SampleKeys.clock.storeKey)?.origin == "fixture-string-clock")
    }

    /// A key declared as a plain service but registered as a slot with parameters is refused at load,
    /// naming both shapes: every plain get of it would fail.
    @Test func aKeyRegisteredInAnotherShapeThanDeclaredIsRefused() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("ClockPlugin")), .file(BuiltPlugins.path("FixtureWrongShape"))])
        #expect(report.loadedNames == ["clock"])
        #expect(report.error(for: "fixture-wrong-shape") == .registrationFailed(
            plugin: "fixture-wrong-shape",
            reason: "key 'fixture.shape': the slot holds (Swift.Int) -> Swift.String, Swift.String is declared"))
        #expect(host.locator.slotInfo(forKey: "fixture.shape") == nil)

        // The same for a plain key registered with an async factory, and a requirement declared
        // plain that meets an async slot (the notes plugin declares its archive `.async`).
        let async = host.load([.file(BuiltPlugins.path("FixtureUndeclaredAsync")), .file(BuiltPlugins.path("NotesPlugin"))])
        #expect(async.error(for: "fixture-undeclared-async") == .registrationFailed(
            plugin: "fixture-undeclared-async",
            reason: "key 'fixture.undeclared-async': the slot holds async Swift.Int, Swift.Int is declared"))
        #expect(async.loadedNames == ["notes"])
        #expect(host.locator.slotInfo(forKey: SampleKeys.archive.storeKey)?.isAsync == true)
    }

    @Test func errorMessagesNameTheFileAndTheCause() throws {
        let report = PluginHost().load([.file(BuiltPlugins.path("FixtureWrongABI"))])
        let message = try #require(report.problems.first).description
        #expect(message.contains("libFixtureWrongABI.so"))
        #expect(message.contains("built against PluginAPI \(LibraryVersion.pluginAPI.major + 1).0.0"))
        #expect(message.contains("but the copy of PluginAPI loaded for it is \(LibraryVersion.pluginAPI) ("))
        #expect(message.contains("libPluginAPI.so): another major version, rebuild it against PluginAPI \(LibraryVersion.pluginAPI)"))
    }

    @Test func theReportAsJSONListsEveryFile() throws {
        let report = PluginHost().load([.file(BuiltPlugins.path("ClockPlugin")), .file(BuiltPlugins.path("FixtureNullEntry"))])
        let object = try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any]
        let plugins = try #require(object?["plugins"] as? [[String: Any]])
        #expect(plugins.compactMap { $0["status"] as? String } == ["loaded", "failed"])
        #expect(plugins.first?["name"] as? String == "clock")
        #expect((plugins.last?["error"] as? String)?.contains("returned nothing") == true)
    }
}
