import HelloRoute
import PluginAPI
import RouteContracts

/// Contributes `GET /hello`.
struct HelloRoutePlugin: Plugin {
    static let route = RouteKeys.route("hello")
    static let metadata = PluginMetadata(name: "hello-route", version: "1.0.0", provides: [route])
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.route, service: HelloRoute())
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(HelloRoutePlugin.self) }
