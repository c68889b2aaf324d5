import PluginAPI
import SampleContracts

/// Provides a greeter that knows the time of day (from the clock plugin), and greetings made to order.
struct GreeterPlugin: Plugin {
    static let metadata = PluginMetadata(
        name: "greeter", version: "1.2.0",
        provides: [SampleKeys.greeter, SampleKeys.greeting],
        requires: [SampleKeys.clock])

    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        // Lazy: the clock is looked up the first time someone wants a greeter, from whichever plugin
        // provides it.
        try registrar.addLazyService(key: SampleKeys.greeter) {
            TimeOfDayGreeter(clock: try services.tryService(key: SampleKeys.clock))
        }
        try registrar.addService(key: SampleKeys.greeting) { (recipient: String) in
            let greeter = try services.tryService(key: SampleKeys.greeter)
            return Greeting(recipient: recipient, text: greeter.greet(recipient))
        }
    }
}

/// "Good morning", "Good afternoon" or "Good evening", by the clock's hour.
struct TimeOfDayGreeter: Greeter {
    let clock: any Clock

    func greet(_ name: String) -> String {
        let part = switch clock.hour() {
        case 5..<12: "morning"
        case 12..<18: "afternoon"
        default: "evening"
        }
        return "Good \(part), \(name)!"
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(GreeterPlugin.self) }
