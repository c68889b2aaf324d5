import Foundation

/// The plugin processes of a host as `/proc` shows them: its children, and the children of its
/// zygote (`PluginProcesses.zygote`), which forks them; the zygote itself is not one.
public enum PluginProcessTable {
    /// Whether `pid` is a host's zygote (its command line starts `NAME: plugin zygote`).
    public static func isZygote(_ pid: Int32) -> Bool {
        guard let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        let argv0 = String(decoding: command.prefix { $0 != 0 }, as: UTF8.self)
        return argv0.trimmingCharacters(in: .whitespaces).hasSuffix(": plugin zygote")
    }

    /// The processes alive now (not zombies) whose parent is `parent`.
    public static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            // `pid (name) state ppid ...`: the name may hold blanks and parentheses, so read after the last ')'.
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent && fields[0] != "Z"
        }
    }

    /// The plugin processes of the host `host`: its children but its zygote, and its zygote's children.
    public static func pluginProcesses(of host: Int32) -> [Int32] {
        children(of: host).flatMap { isZygote($0) ? children(of: $0) : [$0] }
    }
}
