import FixtureRouteSupport
import PluginAPI

/// Version 1 of `fixture-versioned-route`: `GET /versioned` answers `version 1`.
enum One: RouteVersion { static let number = 1 }

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(VersionedRoutePlugin<One>.self) }
