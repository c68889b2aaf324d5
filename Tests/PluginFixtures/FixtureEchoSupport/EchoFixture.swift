import FixtureRemoteContracts
import PluginActors
import PluginAPI

/// One version of the plugin `fixture-echo` (FixtureEchoPlugin 1.0.0, FixtureEchoPluginTwo 2.0.0: one
/// plugin name, two files, as an upgrade brings): provides the echo service (``EchoService``), handed
/// out as itself in process and served to the host from a process of its own otherwise.
public protocol EchoFixture: Plugin {
    static var version: String { get }
}

extension EchoFixture {
    public static var metadata: PluginMetadata {
        PluginMetadata(name: "fixture-echo", version: version, provides: [RemoteKeys.echo])
    }

    public static var contractLibraries: [LibraryVersion] { [.pluginActors, .fixtureRemoteContracts] }

    public func registerServices(in registrar: ModuleRegistrar) throws {
        // Where it registers, in process or in a process of its own: the line reaches the host's log either way.
        registrar.services.log.notice("echo registered", metadata: ["version": Self.version])
        // Its `tag` setting, read as the service is made (in a process of its own: while the host waits for a call).
        let settings = registrar.services.settings, log = registrar.services.log
        try registrar.addLazyService(key: RemoteKeys.echo) { EchoService(tag: try settings.string(forKey: "tag"), log: log) }
    }
}
