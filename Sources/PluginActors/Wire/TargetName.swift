import Glibc

// `@_silgen_name`: the Swift runtime's demangler, a stable C entry point of libswiftCore (HostKit's
// SwiftDemangle declares the same); its result is malloc'd and freed below.
@_silgen_name("swift_demangle")
private func runtimeDemangle(_ mangled: UnsafePointer<CChar>?, _ length: Int, _ output: UnsafeMutablePointer<CChar>?,
                             _ outputSize: UnsafeMutablePointer<Int>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

/// A call target's mangled name made readable for errors (`Contracts.Greeter.greet(Swift.String)`
/// rather than `$s9Contracts8$GreeterC5greetyS2SYaKFTE`).
enum TargetName {
    /// The demangled name of `identifier` (`distributed thunk Contracts.$Greeter.greet(Swift.String) async
    /// throws -> Swift.String`), or `identifier` itself if the runtime cannot read it.
    static func demangled(_ identifier: String) -> String {
        identifier.withCString { mangled in
            guard let demangled = runtimeDemangle(mangled, strlen(mangled), nil, nil, 0) else { return identifier }
            defer { free(demangled) }
            return String(cString: demangled)
        }
    }

    /// The method as its contract's author wrote it, for a person: `Contracts.Greeter.greet(Swift.String)`.
    /// Not the runtime's words for it (`distributed thunk`, the stub type `$Greeter`, the effects and
    /// result after its parameters), which read as jargon in an error.
    static func readable(_ identifier: String) -> String {
        described(demangled(identifier))
    }

    /// ``readable(_:)`` of a demangled name: a distributed thunk's without the runtime's words; any
    /// other as it is.
    static func described(_ demangled: String) -> String {
        let thunk = "distributed thunk "
        guard demangled.hasPrefix(thunk) else { return demangled }
        var name = demangled.dropFirst(thunk.count)
        if let open = parametersStart(in: name) {
            var depth = 0
            if let close = name[open...].indices.first(where: { index in
                if name[index] == "(" { depth += 1 } else if name[index] == ")" { depth -= 1; return depth == 0 }
                return false
            }) {
                name = name[...close]
            }
        }
        // The stub type `$Contract` is the macro's; its author named it `Contract`.
        var words = String(name)
        if let stub = words.firstRange(of: ".$") { words.replaceSubrange(stub, with: ".") }
        return words
    }

    /// Where the parameters of the method `name` names open: the first parenthesis right after a
    /// name, not a context's (`(extension in M):`, `(T in _1A2B)`), which follows nothing or a dot.
    private static func parametersStart(in name: Substring) -> Substring.Index? {
        var previous: Character?
        for index in name.indices {
            let character = name[index]
            if character == "(", let previous, previous.isLetter || previous.isNumber || previous == "_" || previous == "`" {
                return index
            }
            previous = character
        }
        return nil
    }

    /// The method's base name alone (`echo` for `distributed thunk Contracts.$Echo.echo(Contracts.EchoMessage)
    /// async throws -> ...`): a name a metric can carry as one of few values.
    static func method(_ identifier: String) -> String {
        methodName(of: readable(identifier))
    }

    /// The method's base name in a ``described(_:)`` target.
    static func methodName(of described: String) -> String {
        let name = Substring(described)
        let signature = name[..<(parametersStart(in: name) ?? name.endIndex)]
        return String(signature.split(separator: ".").last ?? signature)
    }

    /// The contract a stub type stands for: `Contracts.$Greeter` for `Contracts.$Greeter<PluginActorSystem>`.
    /// (The name `String(reflecting:)` writes, without its conformance checks: their first run in a
    /// fresh process scans every image's conformance records, at the first call of each contract.)
    static func contract(of stub: Any.Type) -> String {
        let name = _typeName(stub, qualified: true)
        return String(name.prefix { $0 != "<" })
    }

    /// True if `identifier` names a distributed method of the stub type `stub` (its contract's).
    static func isMethod(_ identifier: String, of stub: Any.Type) -> Bool {
        demangled(identifier).hasPrefix("distributed thunk \(contract(of: stub)).")
    }
}
