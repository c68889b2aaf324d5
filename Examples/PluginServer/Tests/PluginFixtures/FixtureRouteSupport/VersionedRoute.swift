#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import PluginAPI
import RouteContracts
import Synchronization

/// A version number, for ``VersionedRoutePlugin``.
public protocol RouteVersion: Sendable {
    static var number: Int { get }
}

/// The plugin `fixture-versioned-route` in the version `Version` (FixtureRouteOne and FixtureRouteTwo:
/// one plugin name in two files, which the reload tests deploy over one path): `GET /versioned`
/// answers `version <number>`, or 503 `version <number> stopped` once its shutdown hook has run (a
/// request that reaches a stopped version is seen). Only when PLUGIN_SERVER_FIXTURES is set (the tests set it): a server
/// started on the whole build folder, as the README shows, gets two empty plugins of two names instead.
public struct VersionedRoutePlugin<Version: RouteVersion>: Plugin {
    static var active: Bool { getenv("PLUGIN_SERVER_FIXTURES") != nil }
    static var route: ServiceLocatorEasyKey<any RouteHandler> { RouteKeys.route("versioned") }

    public static var metadata: PluginMetadata {
        active ? PluginMetadata(name: "fixture-versioned-route", version: "\(Version.number).0.0", provides: [route])
            : PluginMetadata(name: "fixture-versioned-route-\(Version.number)", version: "\(Version.number).0.0", provides: [])
    }

    public static var contractLibraries: [LibraryVersion] { [.routeContracts] }

    /// Set by the shutdown hook.
    let stopped = Stopped()

    public init() {}

    public func registerServices(in registrar: ModuleRegistrar) throws {
        if Self.active {
            try registrar.addService(key: Self.route, service: VersionedRoute(number: Version.number, stopped: stopped))
        }
    }

    public func shutdown() async throws {
        stopped.flag.store(true, ordering: .releasing)
    }
}

/// Whether a plugin instance has been shut down.
final class Stopped: Sendable {
    let flag = Atomic(false)
}

/// Answers `GET /versioned` with `version <number>`, or 503 once its plugin has stopped.
struct VersionedRoute: RouteHandler {
    let method = "GET"
    let path = "/versioned"
    let number: Int
    let stopped: Stopped

    func handle(_ request: RouteRequest) async throws -> RouteResponse {
        guard !stopped.flag.load(ordering: .acquiring) else {
            return RouteResponse(status: 503, body: "version \(number) stopped\n")
        }
        return RouteResponse(body: "version \(number)\n")
    }
}
