import Glibc

// `@_silgen_name`: the Swift runtime's demangler, a stable C entry point of libswiftCore (HostKit's
// SwiftDemangle declares the same); its result is malloc'd and freed below.
@_silgen_name("swift_demangle")
private func runtimeDemangle(_ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
                             _ outputSize: UnsafeMutablePointer<Int>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

/// A call target's mangled name made readable for errors (`distributed thunk Contracts.$Greeter.greet(Swift.String) ...`
/// rather than `$s9Contracts8$GreeterC5greetyS2SYaKFTE`).
enum TargetName {
    /// The demangled name of `identifier`, or `identifier` itself if the runtime cannot read it.
    static func readable(_ identifier: String) -> String {
        identifier.withCString { mangled in
            guard let demangled = runtimeDemangle(mangled, strlen(mangled), nil, nil, 0) else { return identifier }
            defer { free(demangled) }
            return String(cString: demangled)
        }
    }

    /// The contract a stub type stands for: `Contracts.$Greeter` for `Contracts.$Greeter<PluginActorSystem>`.
    static func contract(of stub: Any.Type) -> String {
        let name = String(reflecting: stub)
        return String(name.prefix { $0 != "<" })
    }

    /// True if `identifier` names a distributed method of the stub type `stub` (its contract's).
    static func isMethod(_ identifier: String, of stub: Any.Type) -> Bool {
        readable(identifier).hasPrefix("distributed thunk \(contract(of: stub)).")
    }
}
