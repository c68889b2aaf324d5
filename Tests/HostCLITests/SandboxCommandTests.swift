import Foundation
import TestSupport
import Testing

/// The sandbox of a plugin's own process, run as an operator runs it: `host run --own-process` with
/// the settings file, as root (as CI runs) and as an unprivileged user made for the test, whose
/// namespaces the kernel treats otherwise. The sandbox probe's start hook tries each door and logs
/// what it did; each door denied is opened with `--sandbox off`.
extension HostCommandTests {
    /// The user a host runs as: its name (for `setpriv`) and ids; nil name: this process's user.
    struct HostUser {
        let name: String?
        let uid: UInt32
        let gid: UInt32

        /// The user of this process.
        static var current: HostUser { HostUser(name: nil, uid: getuid(), gid: getgid()) }

        /// An unprivileged user of the machine, made for these tests if missing (`useradd`, as root).
        static func unprivileged() async throws -> HostUser {
            let name = "swiftplugin-sandbox"
            if getpwnam(name) == nil {
                let made = try await runChild("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                                              in: URL(fileURLWithPath: "/"), log: URL(fileURLWithPath: NSTemporaryDirectory()))
                #expect(made.status == 0 || getpwnam(name) != nil, "\(made.output)")
            }
            let entry = try #require(getpwnam(name))
            return HostUser(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
        }

        /// `command` run as this user: through `setpriv` for another.
        func command(_ executable: String, _ arguments: [String]) -> (String, [String]) {
            guard let name, uid != getuid() else { return (executable, arguments) }
            _ = name
            return ("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", executable] + arguments)
        }
    }

    @Test func theSandboxHoldsForRootAndForAnUnprivilegedUser() async throws {
        var users = [HostUser.current]
        if getuid() == 0 {
            let user = try await HostUser.unprivileged()
            // A clone in a folder only root may enter (`mktemp -d` makes one 0700) has built products
            // the other user cannot load: that half is left out, and says so, rather than failing on it.
            let (test, arguments) = user.command("/usr/bin/test", ["-r", BuiltPlugins.path("FixtureSandboxProbe")])
            let reach = Process()
            reach.executableURL = URL(fileURLWithPath: test)
            reach.arguments = arguments
            try reach.run()
            reach.waitUntilExit()
            if reach.terminationStatus == 0 {
                users.append(user)
            } else {
                print("theSandboxHoldsForRootAndForAnUnprivilegedUser: \(user.name ?? "") cannot read the built products "
                      + "(a folder on their path is closed to other users): tried as root only")
            }
        }
        for user in users {
            try await sandboxHolds(for: user)
        }
    }

    /// Every door closed for `user`'s host with the sandbox, opened without.
    private func sandboxHolds(for user: HostUser) async throws {
        let folder = try TemporaryFolder()
        let (shell, shellArguments) = user.command("/bin/sh", VictimProcess.command)
        let victim = try VictimProcess(executable: shell, arguments: shellArguments, environment: ["HOST_SECRET_TOKEN": "token-of-the-host"])
        defer { victim.end() }
        let pid = victim.pid
        let secretFolder = folder.file("private")
        try FileManager.default.createDirectory(atPath: secretFolder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let secret = try folder.write("private/secret", Array("secret".utf8), mode: 0o600)
        let settings = folder.file("settings.json")
        let tcp = try LoopbackListener()
        let doors: [(line: String, opensForRootOnly: Bool)] = [
            ("read \(settings)", false), ("read \(secret)", false), ("list /", false),
            ("write /tmp/sandbox-door-\(UUID().uuidString)", false), ("tcp 127.0.0.1:\(tcp.port)", false),
            ("udp 127.0.0.1:\(tcp.port)", false), ("signal \(pid)", false), ("ptrace \(pid)", false), ("prlimit \(pid)", false),
            ("open /proc/\(pid)/mem", false), ("read /proc/\(pid)/environ", false), ("getenv SANDBOX_TESTS_HOST_SECRET", false),
            ("run /bin/true", false), ("shared 64", false), ("memfd -", false), ("threads 600", false),
            ("setuid 0", true), ("unshare -", true), ("bpf -", true), ("mount \(folder.path)", true),
        ]
        let text = #"{ "plugins": { "fixture-sandbox-probe": { "doors": "\#(doors.map(\.line).joined(separator: ";"))" } } }"#
        try folder.write("settings.json", Array(text.utf8), mode: 0o600)
        for path in [folder.path, secretFolder, secret, settings] { chown(path, user.uid, user.gid) }
        for sandbox in ["full", "off"] {
            // Served, as an operator serves, until its plugin's last line arrived; then stopped with SIGTERM.
            let (executable, arguments) = user.command("\(BuiltPlugins.directory)/host", [
                "serve", "--plugins", BuiltPlugins.path("FixtureSandboxProbe"), "--own-process", "*", "--config", settings, "--sandbox", sandbox,
            ])
            let server = try Child(arguments, executable: executable, environment: ["SANDBOX_TESTS_HOST_SECRET": "in-the-host's-environment"])
            _ = try await poll(atMost: .seconds(120)) { server.errors.contains("notice: process ") || !server.process.isRunning }
            kill(server.process.processIdentifier, SIGTERM)
            _ = try await poll(atMost: .seconds(120)) { !server.process.isRunning }
            server.process.waitUntilExit()
            let run = Run(status: server.process.terminationStatus, output: server.output, errors: server.errors)
            let who = "\(user.name ?? "this user") (\(user.uid)), sandbox \(sandbox)"
            #expect(run.status == 0, "\(who): \(run.errors)")
            let answers = Dictionary(run.errorLines.compactMap { line -> (String, String)? in
                guard let door = line.range(of: "notice: door "), let arrow = line.range(of: " -> ") else { return nil }
                return (String(line[door.upperBound..<arrow.lowerBound]), String(line[arrow.upperBound...]))
            }) { first, _ in first }
            for door in doors {
                let answer = answers[door.line] ?? "not tried"
                if sandbox == "full" {
                    #expect(answer.hasPrefix("denied: "), "\(who): \(door.line): \(answer)")
                } else if !door.opensForRootOnly || user.uid == 0 {
                    #expect(answer == "allowed", "\(who): \(door.line): \(answer)")
                }
            }
            if sandbox == "full" {
                #expect(run.output.contains("sandboxed: user namespace, thread limit, network namespace"), "\(who): \(run.output)")
            }
        }
    }
}

extension HostCommandTests {
    /// A plugin whose shutdown hook never returns, and whose process's exit never ends (an exit handler
    /// that waits forever), does not outlive `host serve`: the host gives up on the hook after its
    /// shutdown timeout and exits, and the child ends when its connection to the host closes.
    @Test(arguments: ["full", "off"])
    func aPluginThatWillNotEndDoesNotOutliveItsHost(sandbox: String) async throws {
        let folder = try TemporaryFolder()
        let text = #"{ "plugins": { "fixture-sandbox-probe": { "doors": "exit-handler -", "hangAtShutdown": "true" } } }"#
        let settings = try folder.write("settings.json", Array(text.utf8), mode: 0o600)
        let server = try Child(["serve", "--plugins", plugin("FixtureSandboxProbe"), "--own-process", "*", "--config", settings,
                                "--sandbox", sandbox, "--shutdown-timeout", "0.5"])
        var childID: Int32?
        _ = try await poll(atMost: .seconds(120)) {
            childID = server.errors.split(separator: "\n").compactMap { line in
                line.range(of: "notice: process ").flatMap { Int32(line[$0.upperBound...]) }
            }.first
            return childID != nil || !server.process.isRunning
        }
        let child = try #require(childID, "\(server.errors)")
        #expect(server.errors.contains("door exit-handler - -> allowed"), "\(server.errors)")
        kill(server.process.processIdentifier, SIGTERM)
        #expect(try await poll(atMost: .seconds(120)) { !server.process.isRunning }, "\(server.errors)")
        // Gone, or a zombie its new parent has yet to reap: not running either way.
        let ended = try await poll(atMost: .seconds(60)) {
            let stat = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)) ?? ""
            return stat.isEmpty || stat.contains(") Z ")
        }
        #expect(ended, "the plugin's process \(child) outlived its host: \(server.errors)")
        if !ended { kill(child, SIGKILL) }
    }
}

extension HostCommandTests {
    /// `check` and `list` register a plugin placed in a process of its own in that process, as `run`
    /// does: a registration that throws (a setting of another type) is a problem there too, named.
    @Test(arguments: ["check", "list", "run"])
    func aRegistrationThatFailsInItsOwnProcessIsAProblemOfEveryCommand(command: String) async throws {
        let folder = try TemporaryFolder()
        let text = #"{ "plugins": { "fixture-sandbox-probe": { "workers": "many" } } }"#
        let settings = try folder.write("settings.json", Array(text.utf8), mode: 0o600)
        let run = try await host([command, "--plugins", plugin("FixtureSandboxProbe"), "--own-process", "*", "--config", settings])
        #expect(run.status == 1, "\(command): \(run.output)")
        #expect(run.errors.contains("registration failed") && run.errors.contains("workers"), "\(command): \(run.errors)")
    }
}

extension HostCommandTests {
    /// A command that ends right after its plugins registered (`check`) or started (`run`) has every
    /// line a plugin in a process of its own logged there: the child answers once its lines reached
    /// the host, and the host writes them before it goes on. Before, a `host run` printed 5 to 10 of
    /// 200 lines a start hook logged, and a `check` in a release build lost its plugin's one
    /// registration line in 1 run of 20.
    @Test(arguments: ["check", "run"])
    func aCommandHasEveryLineItsPluginLoggedFromItsOwnProcess(command: String) async throws {
        let folder = try TemporaryFolder()
        let doors = (0..<200).map { "getenv SANDBOX_TESTS_\($0)" }
        let text = #"{ "plugins": { "fixture-sandbox-probe": { "doors": "\#(doors.joined(separator: ";"))", "registrationLines": 2000 } } }"#
        let settings = try folder.write("settings.json", Array(text.utf8), mode: 0o600)
        let run = try await host([command, "--plugins", plugin("FixtureSandboxProbe"), "--own-process", "*", "--config", settings])
        #expect(run.status == 0, "\(run.errors)")
        let registered = run.errorLines.filter { $0.contains("notice: registration line ") }
        #expect(registered.count == 2000, "\(command): \(registered.count) of 2000 lines")
        if command == "run" {
            let logged = run.errorLines.filter { $0.contains("notice: door getenv SANDBOX_TESTS_") }
            #expect(logged.count == doors.count, "\(logged.count) of \(doors.count) lines")
        }
    }
}

extension HostCommandTests {
    /// Where a layer is missing (here no user namespace may be made: the host runs in a user namespace
    /// whose limit of them is 0), the plugin is refused, naming the layer and the option that accepts
    /// less; with `--sandbox available` it loads with the layers there are, and says which.
    @Test func aMissingLayerRefusesThePluginUnlessTheOperatorAcceptsLess() async throws {
        let script = #"echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" "$@""#
        let probe = plugin("FixtureSandboxProbe")
        let refused = try await host(["--user", "--map-root-user", "/bin/sh", "-c", script, "\(BuiltPlugins.directory)/host",
                                      "check", "--plugins", probe, "--own-process", "*"], executable: "/usr/bin/unshare")
        #expect(refused.status == 1, "\(refused.output) \(refused.errors)")
        #expect(refused.errors.contains("the sandbox's user namespace is not available here"), "\(refused.errors)")
        #expect(refused.errors.contains("--sandbox available"), "\(refused.errors)")
        let accepted = try await host(["--user", "--map-root-user", "/bin/sh", "-c", script, "\(BuiltPlugins.directory)/host",
                                       "check", "--plugins", probe, "--own-process", "*", "--sandbox", "available"], executable: "/usr/bin/unshare")
        #expect(accepted.status == 0, "\(accepted.errors)")
        #expect(accepted.output.contains("network namespace, IPC namespace, no capabilities, no_new_privs, Landlock files"),
                "\(accepted.output)")
        #expect(!accepted.output.contains("user namespace"), "\(accepted.output)")
    }
}
