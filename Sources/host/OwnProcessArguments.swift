import Foundation
import HostKit

/// `--own-process FILE`... and how those processes run (`--memory-limit`, `--cpu-limit`, `--open-files`,
/// `--thread-limit`, `--call-timeout`, `--heartbeat`, `--restarts`, `--sandbox`, `--standby`, `--zygote`): the operator's choice of which plugins run each in a
/// process of its own, as the command line gives it.
struct OwnProcessArguments {
    /// Every option this type reads; each takes a value.
    static let options: Set<String> = ["--own-process", "--memory-limit", "--cpu-limit", "--open-files",
                                       "--thread-limit", "--call-timeout", "--heartbeat", "--restarts", "--sandbox",
                                       "--standby", "--zygote"]

    /// The plugin files placed in processes of their own: file names, real paths, or `*` for all.
    var files: Set<String> = []
    /// A sandboxed process is bounded to 512 threads unless the operator says otherwise: a plugin
    /// that starts threads in a loop fails to start more, not the machine.
    var limits = PluginProcesses.Limits(threads: 512)
    var callTimeout: Duration = .seconds(30)
    /// Nil: `--heartbeat 0`, never asked.
    var heartbeat: Duration? = .seconds(5)
    /// Restarts allowed within a minute.
    var restarts = PluginProcesses.RestartPolicy().maximum
    /// `--sandbox`: every layer (`full`, the default), what this kernel offers (`available`), or none (`off`).
    var sandbox = PluginSandbox()
    /// `--standby on`: a process started ahead for each plugin (``PluginProcesses/standby``).
    var standby = false
    /// `--zygote off`: each process started on its own, none forked (``PluginProcesses/zygote``).
    var zygote = true
    /// The first option given that sets how the processes run: it means nothing without `--own-process`.
    private var firstSetting: String?

    /// Reads `option`'s value (nil: there was none after it).
    mutating func parse(_ option: String, _ value: String?) throws(Arguments.UsageError) {
        switch option {
        case "--own-process":
            files.insert(try Self.file(value))
            return
        case "--memory-limit": limits.memoryBytes = try Self.count(option, value, of: "megabytes", in: 1...1_048_576) << 20
        case "--cpu-limit": limits.cpuSeconds = try Self.count(option, value, of: "seconds", in: 1...86_400)
        // Fewer than 16 and the child could not hold its standard streams, its socket and the plugin's files.
        case "--open-files": limits.openFiles = try Self.count(option, value, of: "descriptors", in: 16...1_048_576)
        // Fewer than 16 and the Swift runtime could not start its own (about 10 idle).
        case "--thread-limit": limits.threads = try Self.count(option, value, of: "threads", in: 16...1_000_000)
        case "--call-timeout": callTimeout = try Arguments.seconds(option, value)
        case "--heartbeat": heartbeat = try Self.heartbeat(value)
        case "--sandbox":
            switch value {
            case "full": sandbox = PluginSandbox()
            case "available": sandbox = PluginSandbox(acceptsMissingLayers: true)
            case "off": sandbox = PluginSandbox(isEnabled: false)
            default: throw Arguments.UsageError(description: "--sandbox needs full (every layer, the default), available"
                                                + " (the layers this kernel offers) or off")
            }
        case "--standby":
            switch value {
            case "on": standby = true
            case "off": standby = false
            default: throw Arguments.UsageError(description: "--standby needs on (a process started ahead takes over at a restart) or off (the default)")
            }
        case "--zygote":
            switch value {
            case "on": zygote = true
            case "off": zygote = false
            default: throw Arguments.UsageError(description: "--zygote needs on (each process forked from one started with the host, the default)"
                                                + " or off (each started on its own)")
            }
        default: restarts = Int(try Self.count(option, value, of: "restarts", in: 0...1000))
        }
        firstSetting = firstSetting ?? option
    }

    /// A setting of the processes without a process to set is a mistake the operator would not see
    /// (unless a settings file may place plugins in processes: the caller asks only without one).
    func requireFiles() throws(Arguments.UsageError) {
        guard files.isEmpty, let firstSetting else { return }
        throw Arguments.UsageError(description: "\(firstSetting) sets how plugins in a process of their own run:"
                                   + " name them with --own-process FILE")
    }

    /// The processes the options ask for, each running this very program as `host __serve-plugin`
    /// with `childArguments` (the trust options), their sandboxes with `grants`; nil without
    /// `--own-process`, unless a settings file (`placeable`) may place plugins in processes of their own.
    func processes(childArguments: [String], grants: [String: SandboxGrant], placeable: Bool) -> PluginProcesses? {
        guard !files.isEmpty || placeable else { return nil }
        var sandbox = sandbox
        sandbox.grants = grants
        // The running image, even once the file it came from is replaced (a rebuild): a restarted
        // child is the same program as the host.
        var processes = PluginProcesses(executable: "/proc/self/exe", arguments: [Arguments.Command.servePlugin.rawValue] + childArguments,
                                        files: files, limits: limits, callTimeout: callTimeout, heartbeat: heartbeat,
                                        restarts: PluginProcesses.RestartPolicy(maximum: restarts), sandbox: sandbox)
        processes.standby = standby
        processes.zygote = zygote
        return processes
    }

    /// `--own-process`'s value: `*`, a file name, or a path, made real as the load compares them.
    private static func file(_ value: String?) throws(Arguments.UsageError) -> String {
        guard let value, !value.isEmpty, !value.hasPrefix("-") else {
            throw Arguments.UsageError(description: "--own-process needs a FILE: a plugin's file name, its path, or * for all")
        }
        guard value.contains("/") else { return value }
        guard let real = PackagePaths.real(value) else {
            throw Arguments.UsageError(description: "--own-process \(value): no such file (a file name alone matches"
                                       + " that name in any folder)")
        }
        // A folder's plugins are named each by its file (or all by `*`): a folder matches none of them.
        var isFolder: ObjCBool = false
        guard !(FileManager.default.fileExists(atPath: real, isDirectory: &isFolder) && isFolder.boolValue) else {
            throw Arguments.UsageError(description: "--own-process \(value) is a folder: name a plugin's file in it, or * for all")
        }
        return real
    }

    /// A whole number of `unit` in `range`.
    private static func count(_ option: String, _ text: String?, of unit: String,
                              in range: ClosedRange<UInt64>) throws(Arguments.UsageError) -> UInt64 {
        guard let text, let number = UInt64(text), range.contains(number) else {
            throw Arguments.UsageError(description: "\(option) needs a whole number of \(unit) from"
                                       + " \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// `--heartbeat`'s value: seconds as every timeout takes them, or 0 for none.
    private static func heartbeat(_ text: String?) throws(Arguments.UsageError) -> Duration? {
        if text == "0" { return nil }
        do throws(Arguments.UsageError) {
            return try Arguments.seconds("--heartbeat", text)
        } catch {
            throw Arguments.UsageError(description: error.description + ", or 0 for none")
        }
    }
}
