/// Why a child process could not be started. Whatever was made for it is undone before this is
/// thrown: no descriptor is left open, no child left running or unreaped.
package enum ChildProcessError: Error, CustomStringConvertible {
    /// A string given for its command line or environment cannot be handed to the system: it holds a
    /// NUL byte (C strings end there), or an environment variable's name holds `=` or is empty.
    case unusableText(what: String, text: String)
    /// The program could not be started: `posix_spawn` failed (no such file, not executable...), or
    /// what the spawn needs could not be made (`socketpair`...).
    case cannotStart(executable: String, SystemCallError)
    /// A limit could not be set on the child (a value the system refuses, or above the host's own hard
    /// limit without the right to raise it); the child was killed and reaped.
    case limitRefused(limit: String, value: UInt64, SystemCallError)
    /// A ``Zygote`` could not fork the child: why.
    case cannotFork(reason: String)

    package var description: String {
        switch self {
        case .unusableText(let what, let text):
            return "cannot start a child process: its \(what) \(text.debugDescription) holds a character the system cannot take"
        case .cannotStart(let executable, let error):
            return "cannot start \(executable.debugDescription) as a child process: \(error)"
        case .limitRefused(let limit, let value, let error):
            return "cannot limit a child process's \(limit) to \(value): \(error)"
        case .cannotFork(let reason):
            return "cannot fork a child process from the zygote: \(reason)"
        }
    }
}
