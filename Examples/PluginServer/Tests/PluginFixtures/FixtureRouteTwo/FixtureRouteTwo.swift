import FixtureRouteSupport
import PluginAPI

/// Version 2 of `fixture-versioned-route`: `GET /versioned` answers `version 2`.
enum Two: RouteVersion { static let number = 2 }

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(VersionedRoutePlugin<Two>.self) }
