import Glibc
import HostKit

/// The command line as the kernel gave it: bytes, which need not be UTF-8.
enum RawArguments {
    /// The first argument that is not valid UTF-8, its bad bytes shown as `\xFF`, or `nil`.
    /// `CommandLine.arguments` turns each such byte into U+FFFD: a path with one names a file that is
    /// not there, and the host would say "no such file" instead of what is wrong.
    static func firstNotUTF8() -> String? {
        // max: a program may be started with no arguments at all, not even its name.
        for index in 1..<max(1, Int(CommandLine.argc)) {
            // Index below argc; the kernel's argument strings live as long as the process.
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else { continue }
            let bytes = UnsafeBufferPointer(start: argument, count: strlen(argument)).map { UInt8(bitPattern: $0) }
            return TerminalText.escaped(bytes: bytes)
        }
        return nil
    }
}
