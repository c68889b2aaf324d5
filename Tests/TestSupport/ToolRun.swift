import Foundation
import Glibc

/// Runs the program `executable` with `arguments` in `folder`, waits for its end with `waitpid` and
/// returns its wait status and what it wrote on its standard output (through a file, not a pipe a
/// process spawned meanwhile by another test could keep open). Foundation's `Process.waitUntilExit`
/// missed a `sha256sum`'s end once, beside two CPU-bound jobs, and spun for good.
public func runTool(_ executable: String, _ arguments: [String], in folder: String) throws -> (status: Int32, output: String) {
    let output = folder + "/.tool-output-\(UUID().uuidString)"
    defer { unlink(output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    // The folder by a shell's `cd`: the tool's file names are as given, relative to it.
    let argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", folder, executable] + arguments
    let cArguments = argv.map { strdup($0) } + [nil]
    defer { cArguments.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, cArguments, environ)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
    return (status, String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self))
}
