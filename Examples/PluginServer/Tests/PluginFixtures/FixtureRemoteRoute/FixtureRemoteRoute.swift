import FixtureRemoteRouteSupport
import PluginAPI

/// Version 1 of `fixture-remote-route` (see RemoteRoutePlugin).
enum One: RemoteRouteVersion { static let number = 1 }

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(RemoteRoutePlugin<One>.self) }
