import Foundation

/// A process for a sandbox test to attack (signal, ptrace, read its memory and environment): a
/// shell that waits on a pipe from this process, so it lives until ``end()`` (SIGKILL) or until this
/// test process ends, however that happens. Not a timed `sleep`: one that timed itself out failed a
/// busy run ("No such process"); one that outlived its test held `swift test`'s output open; and
/// SIGTERM did not end one (a signal this process blocks stays blocked in what it starts).
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
        // Only this process may hold the pipe's writing end: a host another test starts meanwhile
        // would keep the victim alive past this process.
        _ = fcntl(lifeline.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
        try process.run()
    }

    /// The victim's own command line: a shell reading its input until it ends.
    public static let command = ["-c", "read _"]

    /// Ends the victim (SIGKILL, which nothing blocks) and waits for it: at once.
    public func end() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        try? lifeline.fileHandleForWriting.close()
    }
}
