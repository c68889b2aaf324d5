import Foundation
import TestSupport
import Testing

/// `host serve` reloads its plugins on SIGHUP, as Unix daemons do: the operator renames a new file
/// over a plugin's (`install`, `mv`) or removes it, then sends SIGHUP.
extension HostCommandTests {
    /// One version after another over `libversioned.so`: a good one is upgraded to, a hostile one is
    /// refused while the old one keeps serving, a removed one is withdrawn; SIGTERM then exits 0.
    @Test func serveReloadsOnSIGHUPUpgradingRefusingAndWithdrawing() async throws {
        let folder = try TemporaryFolder()
        let path = try folder.install("FixtureVersionOne", as: "libversioned.so")
        try folder.install("FixtureQuietControl", as: "libcontrol.so")
        let child = try await serving(folder)
        let pid = child.process.processIdentifier
        let reload = "reload (signal \(SIGHUP)):\n"

        try folder.install("FixtureVersionTwo", as: "libversioned.so")
        #expect(kill(pid, SIGHUP) == 0)
        try await expectOutput(child, reload + "upgraded fixture-versioned 1.0.0 -> 2.0.0 (\(path))\n")

        try folder.install("FixtureBadMagic", as: "libversioned.so")
        #expect(kill(pid, SIGHUP) == 0)
        let kept = "kept fixture-versioned 2.0.0 (\(path)): \(path): bad plugin header"
        try await expectOutput(child, reload + kept)
        // Written to stderr after stdout's line: waited for, not read at once (under load it came later).
        let said = try await poll(atMost: .seconds(60)) { child.errors.contains("host: " + kept) }
        #expect(said, "\(child.errors)")
        #expect(child.process.isRunning, "a refused version ended the host")

        try FileManager.default.removeItem(atPath: path)
        #expect(kill(pid, SIGHUP) == 0)
        try await expectOutput(child, reload + "withdrawn fixture-versioned 2.0.0 (\(path))\n")
        try await expectExitZero(child, after: SIGTERM)
    }

    /// Twenty SIGHUPs in a row, a few milliseconds apart (so that the kernel does not merge them all
    /// into one): the host reloads (those that come during a reload make one more after it), is never
    /// ended by SIGHUP's default action, reloads on the next SIGHUP and serves on until SIGTERM.
    @Test func aBurstOfSIGHUPsLeavesTheHostServing() async throws {
        let folder = try TemporaryFolder()
        try folder.install("FixtureVersionOne", as: "libversioned.so")
        try folder.install("FixtureQuietControl", as: "libcontrol.so")
        let child = try await serving(folder)
        let pid = child.process.processIdentifier
        let reload = "reload (signal \(SIGHUP)):\nunchanged: 2 plugins; plugin images mapped: 2\n"
        for _ in 1...20 {
            guard kill(pid, SIGHUP) == 0 else { break }  // it has gone: said below
            _ = try await poll(atMost: .milliseconds(5)) { false }
        }
        try await expectOutput(child, reload)
        _ = try await poll(atMost: .milliseconds(500)) { false }
        #expect(child.process.isRunning, "ended by signal \(child.process.terminationStatus); stdout: \(child.output)")
        let reloads = child.output.components(separatedBy: reload).count - 1
        #expect((1...20).contains(reloads), "\(reloads) reloads")
        #expect(kill(pid, SIGHUP) == 0)
        let again = try await poll(atMost: .seconds(30)) {
            child.output.components(separatedBy: reload).count - 1 > reloads || !child.process.isRunning
        }
        #expect(again && child.process.isRunning, "no reload after the burst; stdout: \(child.output)")
        try await expectExitZero(child, after: SIGTERM)
    }

    /// `host serve --plugins FOLDER` (the versioned fixture and the quiet control it requires), once it
    /// says it serves and that SIGHUP reloads.
    private func serving(_ folder: TemporaryFolder) async throws -> Child {
        let child = try Child(["serve", "--plugins", folder.path])
        let serving = try await poll(atMost: .seconds(30), every: .milliseconds(5)) {
            child.output.contains("serving 2 plugin(s)") || !child.process.isRunning
        }
        try #require(serving && child.process.isRunning, "not serving; stdout: \(child.output)\nstderr: \(child.errors)")
        #expect(child.output.contains("; SIGHUP reloads; SIGINT or SIGTERM stops"), "\(child.output)")
        return child
    }

    /// Waits until the child printed `text`; fails the test if it does not within 30 s.
    func expectOutput(_ child: Child, _ text: String) async throws {
        let printed = try await poll(atMost: .seconds(30)) { child.output.contains(text) || !child.process.isRunning }
        try #require(printed && child.output.contains(text),
                     "no \(text.debugDescription); running: \(child.process.isRunning)\nstdout: \(child.output)\nstderr: \(child.errors)")
    }

    /// Sends `signal` and expects the child to shut its plugins down and exit 0.
    func expectExitZero(_ child: Child, after signal: Int32) async throws {
        #expect(kill(child.process.processIdentifier, signal) == 0)
        let exited = try await poll(atMost: .seconds(30)) { !child.process.isRunning }
        try #require(exited, "still running 30 s after signal \(signal); stdout: \(child.output)")
        #expect(child.process.terminationReason == .exit && child.process.terminationStatus == 0,
                "status \(child.process.terminationStatus); stdout: \(child.output)\nstderr: \(child.errors)")
        #expect(child.output.contains("signal \(signal): shutting down"), "\(child.output)")
    }
}
