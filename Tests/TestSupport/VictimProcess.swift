import Foundation

/// A process for a sandbox test to attack (signal, ptrace, read its memory and environment): a
/// shell that waits on a pipe from this process, so it lives until ``end()`` or until this test
/// process ends, however that happens. Not a timed `sleep`: one that timed itself out failed a busy
/// run ("No such process"), and one that outlived its test held `swift test`'s output open.
public final class VictimProcess {
    private let process: Process
    private let lifeline: Pipe

    /// The victim's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments` (which run `/bin/sh -c 'read _'` itself, or through
    /// `setpriv` as another user: see ``command``) and `environment`; its output goes nowhere.
    public init(executable: String = "/bin/sh", arguments: [String] = command, environment: [String: String]) throws {
        process = Process()
        lifeline = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = lifeline
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The victim's own command line: a shell reading its input until it ends.
    public static let command = ["-c", "read _"]

    /// Ends the victim (its input closes) and waits for it.
    public func end() {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit {
        try? lifeline.fileHandleForWriting.close()
    }
}
