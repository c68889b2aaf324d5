import Foundation

/// A tool the gate runs (git, swiftc, swift-api-digester, tar), found on PATH.
struct Subprocess {
    /// The tool's name, such as "git".
    let tool: String
    /// Its arguments.
    let arguments: [String]
    /// Where it runs; nil for the gate's own folder.
    var folder: URL? = nil

    /// Runs the tool to its end; returns its exit status and what it wrote (stdout and stderr, interleaved).
    func run() throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        if let folder { process.currentDirectoryURL = folder }
        // One pipe for both streams, read to its end before waiting: the child never blocks on a full pipe.
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do {
            try process.run()
        } catch {
            throw GateError.toolFailed(what: "starting \(tool)", output: "\(error)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs the tool and returns its output; a non-zero exit is a `GateError.toolFailed` naming `what`.
    @discardableResult
    func succeed(_ what: String) throws -> String {
        let (status, output) = try run()
        // env exits 127 when it finds no such tool.
        guard status == 0 else {
            let why = status == 127 ? "\(tool) is not on PATH (\(output))" : output
            throw GateError.toolFailed(what: what, output: why)
        }
        return output
    }
}
