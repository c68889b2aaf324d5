import Glibc

/// A system call that failed: which one, and the `errno` it left.
struct SystemCallError: Error, CustomStringConvertible {
    /// The call's name, as in its manual page (`open`, `realpath`...).
    let call: StaticString
    /// What `errno` said right after the call.
    let code: Int32

    /// The system's words for ``code`` (`No such file or directory`).
    var reason: String { String(cString: strerror(code)) }

    /// `call: reason`.
    var description: String { "\(call): \(reason)" }

    /// The error of `call`, from the `errno` it just left.
    static func last(_ call: StaticString) -> SystemCallError {
        SystemCallError(call: call, code: errno)
    }
}
