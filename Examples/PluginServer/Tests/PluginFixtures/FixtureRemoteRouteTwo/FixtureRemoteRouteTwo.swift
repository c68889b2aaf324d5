import FixtureRemoteRouteSupport
import PluginAPI

/// Version 2 of `fixture-remote-route` (see RemoteRoutePlugin).
enum Two: RemoteRouteVersion { static let number = 2 }

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(RemoteRoutePlugin<Two>.self) }
