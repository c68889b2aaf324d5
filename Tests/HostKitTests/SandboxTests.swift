import FixtureRemoteContracts
import Foundation
import Glibc
import HostKit
import PluginActors
import TestSupport
import Testing

/// A plugin placed in a process of its own is sandboxed (``PluginSandbox``): FixtureSandboxProbe tries,
/// from its own process, each door a plugin may try against its host, from a call and from its start
/// hook. Each door denied with the sandbox on is tried with it off too, where it opens: no door can
/// pass as denied because the probe never tried it.
@Suite(.serialized) struct SandboxTests {
    /// What a door does with the sandbox off, for the user running the tests.
    enum Unconfined {
        /// Opens for every user.
        case opens
        /// Opens for root only (privileged calls).
        case opensForRoot
    }

    /// A door: `KIND TARGET`, as the probe takes it, and what it does unconfined.
    struct Door: CustomStringConvertible {
        let line: String
        let unconfined: Unconfined
        var description: String { line }
    }

    /// The scene of an attack: what the host has that the plugin must not reach, and a stand-in of the
    /// host's process (another process of the host's user, with a secret in its environment: its
    /// memory is read and it is ptraced with the sandbox off, which the tests' own process must not be).
    final class Scene: @unchecked Sendable {
        let folder: TemporaryFolder
        let settingsFile: String
        let secretFile: String
        let victim: VictimProcess
        let tcp: LoopbackListener
        var tcpPort: UInt16 { tcp.port }
        let unixPath: String

        init() throws {
            folder = try TemporaryFolder()
            tcp = try LoopbackListener()
            settingsFile = folder.file("settings.json")
            let settings = #"{ "plugins": { "fixture-sandbox-probe": { "doors": "DOORS" }, "other": { "apiToken": "s3cr3t-of-another" } } }"#
            try folder.write("settings.json", Array(settings.utf8), mode: 0o600)
            let private_ = folder.file("private")
            try FileManager.default.createDirectory(atPath: private_, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            secretFile = private_ + "/secret"
            try Data("secret".utf8).write(to: URL(fileURLWithPath: secretFile))
            victim = try VictimProcess(environment: ["HOST_SECRET_TOKEN": "token-of-the-host"])
            unixPath = folder.file("host.sock")
            try Self.listen(at: unixPath)
        }

        deinit {
            victim.end()
        }

        /// The doors, each the same with the sandbox on (denied) and off (opened).
        var doors: [Door] {
            let pid = victim.pid
            let address = Self.firstMapping(of: pid)
            return [
                Door(line: "read \(settingsFile)", unconfined: .opens),
                Door(line: "read \(secretFile)", unconfined: .opens),
                Door(line: "list /", unconfined: .opens),
                Door(line: "write /tmp/sandbox-door-\(UUID().uuidString)", unconfined: .opens),
                Door(line: "write \((BuiltPlugins.realPath("FixtureSandboxProbe") as NSString).deletingLastPathComponent)/door-\(UUID().uuidString)", unconfined: .opens),
                Door(line: "tcp 127.0.0.1:\(tcpPort)", unconfined: .opens),
                Door(line: "udp 127.0.0.1:\(tcpPort)", unconfined: .opens),
                Door(line: "unix \(unixPath)", unconfined: .opens),
                Door(line: "signal \(pid)", unconfined: .opens),
                Door(line: "ptrace \(pid)", unconfined: .opens),
                Door(line: "prlimit \(pid)", unconfined: .opens),
                Door(line: "memory \(pid):\(address)", unconfined: .opens),
                Door(line: "open /proc/\(pid)/mem", unconfined: .opens),
                Door(line: "read /proc/\(pid)/environ", unconfined: .opens),
                Door(line: "read /proc/\(getpid())/environ", unconfined: .opens),
                Door(line: "getenv SANDBOX_TESTS_HOST_SECRET", unconfined: .opens),
                Door(line: "run /bin/true", unconfined: .opens),
                Door(line: "shared 64", unconfined: .opens),
                Door(line: "memfd -", unconfined: .opens),
                Door(line: "threads \(Self.threads + 36)", unconfined: .opens),
                Door(line: "keyctl -", unconfined: .opens),
                Door(line: "setuid 0", unconfined: .opensForRoot),
                Door(line: "realuser 0", unconfined: .opensForRoot),
                Door(line: "mount \(folder.path)", unconfined: .opensForRoot),
                Door(line: "unshare -", unconfined: .opensForRoot),
                Door(line: "bpf -", unconfined: .opensForRoot),
            ]
        }

        /// The threads the probe's process may run: the sandbox bounds them (`RLIMIT_NPROC` in its user
        /// namespace, root's child with a real user the limit binds); off, nothing does.
        static let threads: UInt64 = 64

        /// A host with the probe in its own process, sandboxed as `sandbox` says, the doors in its
        /// settings; its entry in the load report, which names every layer with the sandbox on.
        func host(_ sandbox: PluginSandbox) throws -> (PluginHost, LoadReport.Entry?) {
            let text = try String(contentsOfFile: settingsFile, encoding: .utf8)
                .replacingOccurrences(of: "DOORS", with: doors.map(\.line).joined(separator: ";"))
            try folder.write("settings.json", Array(text.utf8), mode: 0o600)
            let processes = PluginProcesses(executable: BuiltPlugins.directory + "/plugin-process", arguments: [],
                                            files: ["libFixtureSandboxProbe.so"], limits: .init(threads: Self.threads), heartbeat: nil,
                                            restarts: .init(maximum: 0), environment: sanitizerOptions, sandbox: sandbox)
            let host = PluginHost(processes: processes, settings: try PluginSettingsFile(contentsOf: settingsFile))
            let report = host.load([.file(BuiltPlugins.path("FixtureSandboxProbe"))])
            #expect(report.problems.isEmpty, "\(report.problems)")
            let entry = report.loaded.first
            let layers = entry?.sandbox ?? []
            #expect(layers == (sandbox.isEnabled ? ["user namespace", "thread limit", "network namespace", "IPC namespace", "no capabilities", "no_new_privs",
                                                    "Landlock files", "Landlock TCP", "Landlock scopes", "seccomp filter"]
                                                 .filter { $0 != "network namespace" || sandbox.grants.isEmpty } : []),
                    "\(layers)")
            return (host, entry)
        }

        /// A Unix socket listening at `path` (left open: the scene's folder goes with it).
        private static func listen(at path: String) throws {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 && Glibc.listen(descriptor, 8) == 0
                }
            }
            guard bound else { throw POSIXError(.EADDRINUSE) }
        }

        /// The start address of the first mapping of process `pid`, in hexadecimal.
        private static func firstMapping(of pid: Int32) -> String {
            let maps = (try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? ""
            return maps.split(separator: "-").first.map(String.init) ?? "0"
        }
    }

    init() {
        setenv("SANDBOX_TESTS_HOST_SECRET", "in-the-host's-environment", 1)
    }

    @Test func everyDoorIsDeniedFromACallAndFromTheStartHookAndOpensWithTheSandboxOff() async throws {
        let scene = try Scene()
        let doors = scene.doors
        let (confined, _) = try scene.host(PluginSandbox())
        defer { confined.shutdown() }
        let probe = try confined.locator.tryService(key: RemoteKeys.sandboxProbe)
        for (place, answers) in [("call", try await probe.attempt(doors.map(\.line))), ("start", try await probe.startAttempts())] {
            #expect(answers.count == doors.count, "\(place): \(answers)")
            for (door, answer) in zip(doors, answers) {
                #expect(answer.hasPrefix("denied: "), "\(place): \(door): \(answer)")
            }
        }
        let (free, _) = try scene.host(PluginSandbox(isEnabled: false))
        defer { free.shutdown() }
        let unconfined = try await free.locator.tryService(key: RemoteKeys.sandboxProbe).attempt(doors.map(\.line))
        for (door, answer) in zip(doors, unconfined) where door.unconfined == .opens || getuid() == 0 {
            #expect(answer == "allowed", "unconfined: \(door): \(answer)")
        }
    }
}

extension SandboxTests {
    /// What the sandbox must leave working: the plugin's own file, its settings (the doors reached its
    /// start hook through them), and what it declared (`PluginMetadata.needs`) and the operator granted,
    /// each by name; what it declared and was not granted, and what was granted and not declared, stay denied.
    @Test func whatThePluginDeclaredAndTheOperatorGrantedOpensAndNothingBeside() async throws {
        let scene = try Scene()
        let base = "/tmp/fixture-sandbox-probe"
        let readable = base + "/read", writable = base + "/write", refused = base + "-denied"
        for folder in [readable, writable, refused] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        try Data("granted".utf8).write(to: URL(fileURLWithPath: readable + "/file"))
        // Below the system's ephemeral ports (32768 and up here), which another test's socket could hold.
        let declaredPort = try LoopbackListener(port: 29_101)
        // The write of the base folder covers its `read` and `write` needs, not its sibling's; /etc is granted, not declared.
        let grant = SandboxGrant(read: ["/etc"], write: [base], tcpPorts: [declaredPort.port, scene.tcpPort], run: ["/bin"])
        let (host, report) = try scene.host(PluginSandbox(grants: ["fixture-sandbox-probe": grant]))
        defer { host.shutdown() }
        #expect(report?.sandboxGranted == ["read \(readable)", "write \(writable)", "run /bin/true", "tcp 29101"], "\(String(describing: report))")
        #expect(report?.sandboxRefused == ["write \(refused)"], "\(String(describing: report))")
        #expect(report?.summary.contains("; declared and not granted: write \(refused)") == true, "\(String(describing: report?.summary))")
        let probe = try host.locator.tryService(key: RemoteKeys.sandboxProbe)
        let doors = [
            ("read \(BuiltPlugins.realPath("FixtureSandboxProbe"))", true),
            ("read \(readable)/file", true), ("list \(readable)", true), ("write \(readable)/new", false),
            ("write \(writable)/new-\(UUID().uuidString)", true), ("write \(refused)/new", false), ("read /etc/hostname", false),
            ("read \(scene.settingsFile)", false),
            ("tcp 127.0.0.1:29101", true), ("tcp 127.0.0.1:\(scene.tcpPort)", false),
            ("udp 127.0.0.1:29101", false), ("unix \(scene.unixPath)", false),
            ("run /bin/true", true), ("run /bin/false", false), ("ptrace \(scene.victim.pid)", false),
        ]
        let answers = try await probe.attempt(doors.map(\.0))
        for ((door, opens), answer) in zip(doors, answers) {
            #expect(opens ? answer == "allowed" : answer.hasPrefix("denied: "), "\(door): \(answer)")
        }
        #expect(try await probe.startAttempts().count == scene.doors.count)
    }
}
