import HostKit
import Logging

extension Logger {
    /// Logs a load report line by line: each loaded plugin at `info`, each library the plugins link at
    /// `debug`, each problem at `error`, every line with `plugin` and `version` metadata where the
    /// plugin could be read (the keys a plugin's own log lines carry, ``PluginLogs/swiftLog(_:level:levels:)``),
    /// and `file`.
    public func log(_ report: LoadReport) {
        for entry in report.entries {
            if let error = entry.error {
                var metadata: Logger.Metadata = ["file": "\(entry.path)", "reason": "\(error)"]
                // What a refused plugin says of itself, when it could be read (a version refused, say).
                if let plugin = entry.metadata {
                    metadata["plugin"] = "\(plugin.name)"
                    metadata["version"] = "\(plugin.version)"
                }
                self.error("plugin refused", metadata: metadata)
            } else if entry.isLibrary {
                debug("library", metadata: ["file": "\(entry.path)", "linkedBy": "\(entry.linkedBy.joined(separator: ","))"])
            } else {
                info("plugin loaded", metadata: ["plugin": "\(entry.metadata?.name ?? "?")",
                                                 "version": "\(entry.metadata?.version ?? "?")", "file": "\(entry.path)"])
            }
        }
    }

    /// Logs a shutdown report line by line, in the order the hooks ran: a hook or close that finished
    /// at `info`, one that threw or timed out at `warning`; a reload's old instance (or new one, not
    /// swapped in) with `instance` saying so.
    public func log(_ report: ShutdownReport) {
        for entry in report.entries {
            var metadata: Logger.Metadata = ["plugin": "\(entry.plugin)", "outcome": "\(entry.outcome)",
                                             "duration": "\(entry.duration)"]
            if let service = entry.service { metadata["key"] = "\(service)" }
            // A reload's old instance (or its new one, not swapped in): not the plugin that serves.
            if let instance = entry.instance { metadata["instance"] = "\(instance)" }
            let what = entry.service == nil ? "plugin shut down" : "service closed"
            if entry.outcome.isFinished {
                info("\(what)", metadata: metadata)
            } else {
                warning("\(what) failed", metadata: metadata)
            }
        }
    }

    /// Logs a reload report line by line: each plugin added, upgraded, restarted, reconfigured, moved or
    /// withdrawn at `info` (`plugin upgraded`, with `version` and `previousVersion`; `plugin
    /// reconfigured`, with `settingsChanged`: the keys, never their values; `plugin moved`, with
    /// `movedTo`: `in-process` or `own-process`), each change refused at
    /// `error` with its `reason`, the old versions' hooks as a shutdown report's, then
    /// one line `plugins reloaded` with how many plugins serve on unchanged and how many images are mapped.
    public func log(_ report: ReloadReport) {
        for entry in report.entries {
            var metadata: Logger.Metadata = ["plugin": "\(entry.plugin)", "file": "\(entry.path)"]
            if let version = entry.version { metadata["version"] = "\(version)" }
            if let previous = entry.previousVersion { metadata["previousVersion"] = "\(previous)" }
            if entry.action == .reconfigured { metadata["settingsChanged"] = "\(entry.settingsChanged.joined(separator: ","))" }
            if let placement = entry.movedTo { metadata["movedTo"] = "\(placement.rawValue)" }
            if let reason = entry.reason {
                metadata["reason"] = "\(reason)"
                self.error(entry.action == .kept ? "plugin change refused" : "plugin refused", metadata: metadata)
            } else {
                info("plugin \(entry.action.rawValue)", metadata: metadata)
            }
        }
        log(report.stopped)
        info("plugins reloaded", metadata: ["changes": "\(report.entries.count)", "unchanged": "\(report.unchanged)",
                                            "imagesMapped": "\(report.imagesMapped)"])
    }
}
