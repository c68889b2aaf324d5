internal import DynamicLoading
import Foundation

/// Where to look for plugin files.
public enum PluginSource: Sendable, Hashable {
    /// One plugin file.
    case file(String)
    /// Every `*.so` directly in a directory (not its subdirectories), in name order.
    case directory(String)
    /// A colon-separated list of files and directories, as in an environment variable.
    case searchPath(String)

    /// `path` as given on a command line: a ``directory(_:)`` if it is one, else a ``file(_:)``.
    public static func path(_ path: String) -> PluginSource {
        FileStatus(path)?.isDirectory == true ? .directory(path) : .file(path)
    }

    /// The plugins installed beside the running program: each file in its executable's folder named
    /// `lib…` and ending in `suffix`, in name order. The suffix keeps out the other shared libraries
    /// there (PluginAPI's, say). Empty if there is none, or the folder cannot be read.
    public static func besideExecutable(endingWith suffix: String = "Plugin.so") -> [PluginSource] {
        guard let folder = Bundle.main.executableURL?.deletingLastPathComponent().path,
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter { $0.hasPrefix("lib") && $0.hasSuffix(suffix) }.sorted().map { .file("\(folder)/\($0)") }
    }

    /// The search path in the environment variable `name`, if it is set and not empty.
    public static func environment(_ name: String = "SWIFT_PLUGIN_PATH") -> PluginSource? {
        guard let value = Posix.environment(name), !value.isEmpty else { return nil }
        return .searchPath(value)
    }
}
