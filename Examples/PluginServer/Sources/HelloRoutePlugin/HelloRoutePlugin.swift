import HelloRoute
import PluginAPI
import RouteContracts

/// Contributes `GET /hello` and `POST /echo`.
struct HelloRoutePlugin: Plugin {
    static let route = RouteKeys.route("hello")
    static let echo = RouteKeys.route("echo")
    static let metadata = PluginMetadata(name: "hello-route", version: "1.1.0", provides: [route, echo])
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.route, service: HelloRoute())
        try registrar.addService(key: Self.echo, service: EchoRoute())
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(HelloRoutePlugin.self) }
