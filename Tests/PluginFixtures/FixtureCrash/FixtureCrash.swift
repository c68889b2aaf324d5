import Glibc
import PluginAPI

/// A plugin whose module crashes (SIGSEGV) while registering, but only when the probe tests ask for
/// it with HOSTKIT_FIXTURE_MISBEHAVE=1: a plain `host check` of the build folder must not die. With
/// HOSTKIT_FIXTURE_CRASH_IN_ENTRY set too, its entry crashes, before the host sees a header.
struct CrashPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-crash", version: "1.0.0", provides: [])

    func registerServices(in registrar: ModuleRegistrar) throws {
        guard getenv("HOSTKIT_FIXTURE_MISBEHAVE") != nil else { return }
        raise(SIGSEGV)
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer {
    if getenv("HOSTKIT_FIXTURE_MISBEHAVE") != nil && getenv("HOSTKIT_FIXTURE_CRASH_IN_ENTRY") != nil { raise(SIGSEGV) }
    return exportPlugin(CrashPlugin.self)
}
