import Foundation

/// This repository's root folder: this file is `<root>/Tests/TestSupport/ChildProcess.swift`.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs `executable` in `folder` with stdout and stderr in one log file under `log`; after `timeout`
/// it is interrupted and the result says so (status -1).
public func runChild(_ executable: String, _ arguments: [String], in folder: URL, log: URL,
                     timeout: Duration = .seconds(60)) async throws -> (status: Int32, output: String) {
    let logFile = log.appendingPathComponent("\(UUID().uuidString).log")
    guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logFile.path])
    }
    let handle = try FileHandle(forWritingTo: logFile)
    defer { try? handle.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = folder
    // SwiftPM puts its lock files in TMPDIR; in `log` they go away with the rest.
    process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": log.path]) { $1 }
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    let finished = try await poll(atMost: timeout, every: .milliseconds(100)) { !process.isRunning }
    if !finished { process.interrupt() }
    process.waitUntilExit()
    let output = String(decoding: (try? Data(contentsOf: logFile)) ?? Data(), as: UTF8.self)
    let command = ([executable] + arguments).joined(separator: " ")
    return finished ? (process.terminationStatus, output) : (-1, "\(command): timed out after \(timeout)\n\(output)")
}
