import Glibc
import PluginAPI

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

    /// The module a mangled Swift symbol belongs to (`SampleContracts` for
    /// `$s15SampleContracts5ClockP4zoneSSyFTj`), if it starts with one spelled out.
    static func module(of symbol: String) -> String? {
        guard symbol.hasPrefix("$s") else { return nil }
        let rest = symbol.dropFirst(2)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard let length = Int(digits), length > 0 else { return nil }
        let name = rest.dropFirst(digits.count).prefix(length)
        return name.count == length ? String(name) : nil
    }

    /// A copy of a library a plugin was bound to: its file, and its version if it was read (only a
    /// loaded copy is asked for it).
    struct Copy {
        let file: String
        let version: LibraryVersion?
    }

    /// `dlerror`'s text for the file `opened`, without the file name it starts with (the error names
    /// the plugin already), and an undefined Swift symbol also said in Swift terms with the library
    /// it belongs to (by its module) and the copy of that library the plugin was bound to:
    /// `copy(name)` finds it. "undefined symbol: $s15SampleContracts5ClockP4zoneSSyFTj" becomes
    /// "... (dispatch thunk of SampleContracts.Clock.zone() -> Swift.String): a declaration of
    /// SampleContracts that the copy it was bound to, SampleContracts 1.0.0 (/path/libSampleContracts.so),
    /// lacks ...".
    static func explain(_ message: String, opened: String, copy: (String) -> Copy?) -> String {
        var message = message
        if message.hasPrefix(opened + ": ") { message.removeFirst(opened.count + 2) }
        let marker = "undefined symbol: "
        guard let range = message.range(of: marker) else { return message }
        let symbol = String(message[range.upperBound...].prefix { !$0.isWhitespace && $0 != "," && $0 != "(" })
        guard let swift = demangle(symbol) else { return message }
        guard let library = module(of: symbol) else {
            return "\(message) (\(swift)): a declaration the libraries it was bound to lack: rebuild it against them"
        }
        guard let copy = copy(library) else {
            return "\(message) (\(swift)): a declaration of \(library) that the copy of \(library) it was bound to lacks: "
                + "built against another version of \(library), rebuild it against the copy it is loaded with"
        }
        guard let version = copy.version else {
            return "\(message) (\(swift)): a declaration of \(library) that the copy it was bound to, \(copy.file) (found for "
                + "it, not loaded before, so nothing of it ran to read its version), lacks: built against another version of \(library), "
                + "ship it with the copy it was built against or rebuild it against that one"
        }
        return "\(message) (\(swift)): a declaration of \(library) that the copy it was bound to, \(library) \(version) "
            + "(\(copy.file)), lacks: built against another version of \(library), rebuild it against \(library) \(version) "
            + "or load it with the copy it was built against"
    }
}
