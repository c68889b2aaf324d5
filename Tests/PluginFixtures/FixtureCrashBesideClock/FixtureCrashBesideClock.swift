import Glibc
import PluginAPI
import SampleContracts

/// Requires the clock, and crashes (SIGSEGV) while registering only when the clock is there and the
/// probe tests ask for it with HOSTKIT_FIXTURE_MISBEHAVE=1: a probe that registers it alone, without
/// its requirement, sees nothing wrong.
struct CrashBesideClockPlugin: Plugin {
    static let fine = ServiceLocatorEasyKey<String>(name: "fixture.crash-beside-clock")
    static let metadata = PluginMetadata(name: "fixture-crash-beside-clock", version: "1.0.0", provides: [fine],
                                         requires: [SampleKeys.clock])
    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        if registrar.services.getService(key: SampleKeys.clock) != nil && getenv("HOSTKIT_FIXTURE_MISBEHAVE") != nil {
            raise(SIGSEGV)
        }
        try registrar.addService(key: Self.fine, service: "fine")
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(CrashBesideClockPlugin.self) }
