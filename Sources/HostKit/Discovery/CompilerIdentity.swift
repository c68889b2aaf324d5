internal import DynamicLoading

/// Which toolchain built a binary, read from the file without loading it.
///
/// A Swift toolchain's linker writes the LLVM it was built from into the ELF `.comment` section of
/// every binary it makes: `clang version 21.0.0 (https://github.com/swiftlang/llvm-project.git
/// 11673e66…)`. A plugin built by another toolchain than the host may lay out the Swift runtime's
/// and PluginAPI's types differently, so the host compares the lines before `dlopen`
/// (ARCHITECTURE.md, "The compiler is checked before dlopen").
enum CompilerIdentity {
    /// What a file says about its toolchain.
    enum Reading: Equatable {
        /// An ELF file that names no toolchain (its `.comment` section was stripped, say).
        case unknown
        /// The toolchain's line, cut to 200 characters. It comes from a file anyone could have
        /// written: ``PluginLoadError/description`` escapes what is unprintable in it.
        case toolchain(String)
    }

    /// The toolchain line of a file the ELF check read.
    static func read(_ file: ELFCheck.Reading) -> Reading {
        // A valid library whose sections cannot be read (an offset past the end, a section far too
        // large) names no toolchain: refused, so that damaging them does not skip the check.
        guard let strings = file.comment else { return .unknown }
        guard let line = strings.first(where: { $0.hasPrefix("clang version ") || $0.hasPrefix("Swift version ") }) else {
            return .unknown
        }
        return .toolchain(String(line.prefix(200)))
    }

    /// The host's own toolchain (this executable's), or `nil` if it names none: then nothing can
    /// be compared, and no plugin is refused for its compiler.
    static let host: String? = {
        guard let program = ELFCheck.hostExecutable, case let .toolchain(line) = read(program) else { return nil }
        return line
    }()

    /// Why the plugin at `path`, whose ELF check read `file`, was not built by the host's toolchain,
    /// or `nil` if it was (or if the host names no toolchain). This catches
    /// mistakes, not forgers: whoever writes a file can write the host's line into it.
    static func mismatch(_ path: String, _ file: ELFCheck.Reading) -> PluginLoadError? {
        guard let host else { return nil }
        switch read(file) {
        case .unknown: return .compilerMismatch(path: path, plugin: "no compiler named in its .comment section", host: host)
        case let .toolchain(line): return line == host ? nil : .compilerMismatch(path: path, plugin: line, host: host)
        }
    }
}
