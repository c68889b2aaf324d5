import Glibc

/// The Swift runtime's demangler (`swift_demangle` in libswiftCore, a stable C entry point): turns
/// a mangled symbol name such as `$s15SampleContracts5ClockP4zoneSSyFTj` into Swift terms
/// (`dispatch thunk of SampleContracts.Clock.zone() -> Swift.String`).
// `@_silgen_name`: declares the runtime's C function with its C signature (libswiftCore exports it
// under that plain name and keeps it stable); its result is malloc'd and freed below.
@_silgen_name("swift_demangle")
private func runtimeDemangle(_ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
                             _ outputSize: UnsafeMutablePointer<Int>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

enum SwiftDemangle {
    /// `symbol` in Swift terms, or `nil` if it is no Swift symbol.
    static func demangle(_ symbol: String) -> String? {
        symbol.withCString { mangled in
            guard let demangled = runtimeDemangle(mangled, strlen(mangled), nil, nil, 0) else { return nil }
            defer { free(demangled) }
            return String(cString: demangled)
        }
    }

    /// `dlerror`'s text with each undefined Swift symbol also said in Swift terms: "undefined symbol:
    /// $s15SampleContracts5ClockP4zoneSSyFTj" becomes "... (dispatch thunk of SampleContracts.Clock.zone()
    /// -> Swift.String): the plugin uses a declaration the host's copy of a library lacks".
    static func explain(_ message: String) -> String {
        let marker = "undefined symbol: "
        guard let range = message.range(of: marker) else { return message }
        let symbol = message[range.upperBound...].prefix { !$0.isWhitespace && $0 != "," && $0 != "(" }
        guard let swift = demangle(String(symbol)) else { return message }
        return "\(message) (\(swift)): the plugin uses a declaration that the host's copy of its library lacks; "
            + "it was built against a newer version"
    }
}
