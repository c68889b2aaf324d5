internal import DynamicLoading
import Foundation

/// The sandbox one child of a plugin's process is started in (``PluginSandbox``): the policy the
/// child enters before it loads anything, and the private folder the host made for it, removed when
/// the child ends.
struct ChildConfinement {
    let policy: SandboxPolicy
    let folder: ShadowFolder

    /// The confinement of a child for `candidate`: it reads the plugin's file and the libraries beside
    /// it, writes in a folder of its own (made here, in `parent`: where the host's folders of copies
    /// go, ``PluginDiscovery/shadowFolder``), and reaches what `grant` adds.
    ///
    /// `parent` is the host's setting, not the folder `candidate`'s copy was made in: a file opened
    /// before is handed back as it was first opened, maybe by another host of the process whose
    /// folders went elsewhere (and are gone).
    static func make(for candidate: PluginCandidate, in parent: String?, sandbox: PluginSandbox, grant: SandboxGrant?,
                     threads: UInt64?) -> Result<ChildConfinement, PluginLoadError> {
        let folder: ShadowFolder
        switch ShadowFolder.make(in: parent) {
        case let .success(made): folder = made
        case let .failure(unusable):
            return .failure(.processFailed(path: candidate.realPath, reason: "no private folder for its process in \(unusable.path): \(unusable.reason)"))
        }
        do {
            try folder.create()
        } catch {
            folder.remove()
            return .failure(.processFailed(path: candidate.realPath, reason: "no private folder for its process in \(folder.root): \(error.reason)"))
        }
        let grant = grant ?? SandboxGrant()
        let policy = SandboxPolicy(readable: [candidate.realPath] + libraries(beside: candidate.realPath) + grant.read,
                                   writable: grant.write, folder: folder.root, tcpPorts: grant.tcpPorts,
                                   runnable: grant.run, threads: threads,
                                   acceptsMissingLayers: sandbox.acceptsMissingLayers)
        return .success(ChildConfinement(policy: policy, folder: folder))
    }

    /// Removes what the host made for the child, once it ended.
    func remove() {
        folder.remove()
    }

    /// The policy as the child reads it, from ``SandboxPolicy/variable``.
    var variable: (name: String, value: String) {
        let text = (try? JSONEncoder().encode(policy)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return (SandboxPolicy.variable, text)
    }

    /// The shared libraries in the plugin's folder, which it may link (its contract libraries, say):
    /// by file, so that nothing else of that folder is readable.
    private static func libraries(beside path: String) -> [String] {
        let folder = (path as NSString).deletingLastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".so") || $0.contains(".so.") }.map { folder + "/" + $0 }
    }

    /// Nil if the process `pid` runs with `no_new_privs` and a seccomp filter, as a child that entered
    /// its sandbox does, and with the thread limit it says it set; else what `/proc/PID/status` (or
    /// `/proc/PID/limits`) says instead. The host's own check of the child's word.
    func problem(ofProcess pid: Int32, layers: [String]) -> String? {
        if let threads = policy.threads, layers.contains(SandboxLayer.threadLimit.rawValue) {
            let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
            let line = limits.split(separator: "\n").first { $0.hasPrefix("Max processes") }
            guard line?.split(separator: " ").dropFirst(2).prefix(2).elementsEqual(["\(threads)", "\(threads)"]) == true else {
                return "it runs without its thread limit (\(line.map(String.init) ?? "no Max processes in /proc/\(pid)/limits"))"
            }
        }
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            return "its status cannot be read"
        }
        // Two lines of some sixty read: Foundation's trimming of every field took 0.3 ms of a start.
        let lines = status.split(separator: "\n")
        let value = { (name: String) -> String? in
            lines.lazy.compactMap { line -> String? in
                guard line.hasPrefix(name + ":") else { return nil }
                return String(line.dropFirst(name.count + 1).filter { !$0.isWhitespace })
            }.first
        }
        guard value("NoNewPrivs") == "1", value("Seccomp") == "2" else {
            return "it runs without no_new_privs or a seccomp filter (NoNewPrivs \(value("NoNewPrivs") ?? "?"), Seccomp \(value("Seccomp") ?? "?"))"
        }
        return nil
    }
}
