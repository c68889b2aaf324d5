import Foundation
import Glibc
import HostKit
@_spi(HostKit) import PluginAPI
import TestSupport
import Testing

/// A plugin whose service is a distributed actor (FixtureEchoPlugin, on FixtureRemoteContracts' `Echo`)
/// and one that requires it (FixtureEchoUserPlugin), loaded in process: the half of "in process or in
/// a process of its own" that needs no child. Serialized: two loads at once in one process that both
/// newly map the same contract library (FixtureRemoteContracts, which nothing has loaded before them)
/// can refuse one of them ("the dynamic linker mapped it, but it is not a file that was checked"),
/// a race of two hosts' library checks in one process that is not what these tests are about.
@Suite(.serialized) struct DistributedServiceTests {
    /// The echo service is handed out as the plugin's actor itself, not a proxy: the user plugin's start
    /// hook calls it and is answered from this process by the plugin's type. Its requirement, declared
    /// with the distributed key, is met as any other, whatever the order of the files.
    @Test func inProcessADistributedServiceIsHandedOutAsItselfAndMeetsItsRequirement() async throws {
        let host = PluginHost()
        let report = host.load(["FixtureEchoUserPlugin", "FixtureEchoPlugin"].map { .file(BuiltPlugins.path($0)) })
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(Set(report.loadedNames) == ["fixture-echo", "fixture-echo-user"])

        let answer = try host.locator.tryService(key: ServiceLocatorEasyKey<String>(name: "fixture.echo-user.answer"))
        #expect(answer == "hello 42 a,b from pid \(getpid()) by FixtureEchoSupport.EchoService")
        let slot = try #require(host.locator.slotInfo(forKey: "fixture.echo"))
        #expect(slot.serviceType == "FixtureRemoteContracts.Echo")
        #expect(slot.origin == "fixture-echo")
        let service = try await host.locator.anyService(storeKey: "fixture.echo")
        #expect(String(reflecting: type(of: service)) == "FixtureEchoSupport.EchoService")
    }

    /// What a host reads of the plugin's declared key: distributed, and its stub found again by the
    /// mangled name (as a host finds it from a name its child sends), across the libraries loaded.
    @Test func theDeclaredKeyNamesItsStubAndTheNameFindsIt() throws {
        let host = PluginHost()
        let report = host.load([.file(BuiltPlugins.path("FixtureEchoPlugin"))])
        #expect(report.problems.isEmpty, "\(report.problems)")
        let metadata = try #require(report.loaded.first?.metadata)
        let key = try #require(metadata.provides.first)
        #expect(key.storeKey == "fixture.echo")
        #expect(key.isDistributed)
        let stub = try #require(key.stubType)
        #expect(String(reflecting: stub) == "FixtureRemoteContracts.$Echo<PluginActors.PluginActorSystem>")
        let name = try #require(key.stubTypeName)
        let found = try #require(DeclaredKey.stubType(named: name))
        #expect(ObjectIdentifier(found) == ObjectIdentifier(stub))
    }
}
