import Glibc

/// A system call that failed: which one, and the `errno` it left.
package struct SystemCallError: Error, CustomStringConvertible {
    /// The call's name, as in its manual page (`open`, `realpath`...).
    package let call: StaticString
    /// What `errno` said right after the call.
    package let code: Int32

    /// The system's words for ``code`` (`No such file or directory`).
    package var reason: String { String(cString: strerror(code)) }

    /// `call: reason`.
    package var description: String { "\(call): \(reason)" }

    /// The error of `call`, from the `errno` it just left.
    package static func last(_ call: StaticString) -> SystemCallError {
        SystemCallError(call: call, code: errno)
    }
}
