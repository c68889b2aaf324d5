import HostKit
import Logging

extension Logger {
    /// Logs a load report line by line: each loaded plugin at `info`, each library the plugins link at
    /// `debug`, each problem at `error`, every line with `plugin` (or `file`) metadata.
    public func log(_ report: LoadReport) {
        for entry in report.entries {
            if let error = entry.error {
                self.error("plugin refused", metadata: ["file": "\(entry.path)", "reason": "\(error)"])
            } else if entry.isLibrary {
                debug("library", metadata: ["file": "\(entry.path)", "linkedBy": "\(entry.linkedBy.joined(separator: ","))"])
            } else {
                info("plugin loaded", metadata: ["plugin": "\(entry.metadata?.name ?? "?")",
                                                 "version": "\(entry.metadata?.version ?? "?")", "file": "\(entry.path)"])
            }
        }
    }

    /// Logs a shutdown report line by line, in the order the hooks ran: a hook or close that finished
    /// at `info`, one that threw or timed out at `warning`.
    public func log(_ report: ShutdownReport) {
        for entry in report.entries {
            var metadata: Logger.Metadata = ["plugin": "\(entry.plugin)", "outcome": "\(entry.outcome)",
                                             "duration": "\(entry.duration)"]
            if let service = entry.service { metadata["key"] = "\(service)" }
            let what = entry.service == nil ? "plugin shut down" : "service closed"
            if entry.outcome.isFinished {
                info("\(what)", metadata: metadata)
            } else {
                warning("\(what) failed", metadata: metadata)
            }
        }
    }
}
