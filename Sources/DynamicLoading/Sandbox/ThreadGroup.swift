import Foundation
import Glibc

/// A pids cgroup of one plugin's process: what bounds the threads (and, with a run grant, the
/// processes) of a root host's child, which `RLIMIT_NPROC` does not bind (the kernel exempts root's
/// user, also in a user namespace). The host makes it before the spawn, with its bound, inside its own
/// group of the pids hierarchy (cgroup v1's `pids` controller, or cgroup v2 where the host's group
/// hands `pids` down); the child joins it first thing (``Sandbox/enter(_:)``), and the host removes it
/// once the child ended. A plugin cannot leave it: the cgroup files are outside what Landlock lets
/// it write, and the filter leaves it no capability to mount another.
package struct ThreadGroup: Sendable, Equatable {
    /// The group's folder.
    package let path: String

    /// A new group under this process's own, bounded to `limit` tasks; or why none could be made.
    package static func make(limit: UInt64) -> Result<ThreadGroup, SandboxError> {
        guard let parent = ownFolder() else {
            return failure("this process is in no pids cgroup it can find (/proc/self/cgroup, /proc/self/mountinfo)")
        }
        removeLeftovers(in: parent)
        let path = parent + "/\(prefix)\(getpid())-\(UUID().uuidString.prefix(8))"
        guard mkdir(path, 0o755) == 0 else {
            return failure("mkdir \(path): \(String(cString: strerror(errno)))")
        }
        let group = ThreadGroup(path: path)
        guard FileManager.default.fileExists(atPath: path + "/pids.max") else {
            group.remove()
            return failure("\(parent) hands its groups no pids controller")
        }
        if let problem = Sandbox.write("\(limit)", to: path + "/pids.max") {
            group.remove()
            return failure(problem)
        }
        return .success(group)
    }

    /// The layer's error for `reason`.
    private static func failure(_ reason: String) -> Result<ThreadGroup, SandboxError> {
        .failure(SandboxError(layer: .threadLimit, reason: reason))
    }

    /// Removes the group, which its child's end left empty.
    package func remove() {
        rmdir(path)
    }

    /// What each group's name begins with, before its host's process number.
    private static let prefix = "swift-plugin-"

    /// Removes the groups in `parent` whose host is gone: a host that exits right after its plugins
    /// stop (`host run`) ends before its children's ends are seen. A group with a process left in it
    /// is not removed (`rmdir` refuses).
    private static func removeLeftovers(in parent: String) {
        for group in Posix.glob(parent + "/" + prefix + "*-*") {
            let number = group.dropFirst(parent.count + 1 + prefix.count).prefix { $0 != "-" }
            guard let host = Int32(number), host != Posix.processID, !Posix.isRunning(host) else { continue }
            rmdir(group)
        }
    }

    /// Moves the calling process, and every thread it will start, into the group at `path`: nil, or why not.
    static func join(_ path: String) -> String? {
        Sandbox.write("\(getpid())", to: path + "/cgroup.procs")
    }

    /// Whether the process `pid` is in this group, as `/proc/PID/cgroup` says: the host's own check.
    package func holds(_ pid: Int32) -> Bool {
        guard let lines = try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8) else { return false }
        let name = "/" + (path as NSString).lastPathComponent
        return lines.split(separator: "\n").contains { $0.hasSuffix(name) }
    }

    /// This process's folder in the pids hierarchy: v1's `pids` controller, else cgroup v2's.
    private static func ownFolder() -> String? {
        guard let groups = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let mounts = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return nil }
        // "ID:controllers:path"; v2's line is "0::path".
        let entries = groups.split(separator: "\n").map { $0.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init) }
        // mountinfo: "ID parent major:minor root mountpoint options... - type source superoptions".
        let mounted = mounts.split(separator: "\n").compactMap { line -> (root: String, point: String, type: String, options: [Substring])? in
            let halves = line.components(separatedBy: " - ")
            let fields = halves[0].split(separator: " ")
            guard halves.count == 2, fields.count >= 5 else { return nil }
            let tail = halves[1].split(separator: " ")
            guard tail.count >= 3 else { return nil }
            return (String(fields[3]), String(fields[4]), String(tail[0]), tail[2].split(separator: ","))
        }
        let v1 = entries.first { $0.count == 3 && $0[1].split(separator: ",").contains("pids") }
            .flatMap { entry in mounted.first { $0.type == "cgroup" && $0.options.contains("pids") }.map { (entry[2], $0) } }
        let v2 = entries.first { $0.count == 3 && $0[0] == "0" && $0[1].isEmpty }
            .flatMap { entry in mounted.first { $0.type == "cgroup2" }.map { (entry[2], $0) } }
        guard let (group, mount) = v1 ?? v2 else { return nil }
        // The mount shows the hierarchy from its root down: the group's path below that root.
        let below = mount.root == "/" ? group : group.hasPrefix(mount.root) ? String(group.dropFirst(mount.root.count)) : nil
        return below.map { mount.point + ($0 == "/" ? "" : $0) }
    }
}
