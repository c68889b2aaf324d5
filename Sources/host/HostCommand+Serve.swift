import Foundation
import HostKit

/// `host serve`: serves the plugins until SIGINT or SIGTERM, reloading them at each SIGHUP.
extension HostCommand {
    /// `serve --strict` after a load with problems: the plugins that started are shut down, and
    /// the exit status is 1.
    func refuseToServe(_ host: PluginHost) -> Int32 {
        let shutdown = host.shutdown(timeout: arguments.shutdownTimeout)
        Output.lines(shutdown.lines)
        for entry in shutdown.problems { Output.problem(entry.summary) }
        return 1
    }

    /// Says it is serving (SIGHUP, SIGINT and SIGTERM are caught since before the load; each SIGHUP
    /// reloads the plugins meanwhile), waits for SIGINT or SIGTERM, whose watcher shut the plugins
    /// down (before `run`'s own shutdown, which then has nothing left to do), and prints what
    /// happened. Returns false if a plugin's shutdown failed.
    func serve(_ host: PluginHost, _ report: LoadReport, signals: AsyncStream<(Int32, ShutdownReport)>) async -> Bool {
        Output.lines(report.loaded.map(\.summary)
            + ["serving \(host.startedPlugins.count) plugin(s) (pid \(getpid())); SIGHUP reloads; SIGINT or SIGTERM stops"])
        fflush(nil)  // stdout to a pipe or a file is buffered
        var iterator = signals.makeAsyncIterator()
        guard let (signal, shutdown) = await iterator.next() else { return true }
        Output.lines(["signal \(signal): shutting down"] + shutdown.lines)
        for entry in shutdown.problems { Output.problem(entry.summary) }
        return shutdown.problems.isEmpty
    }

    /// A reload's report on stdout under a line that names its signal, at once (stdout may be a pipe);
    /// what it refused, and the hooks that failed, on stderr as the load's problems are.
    static func printReload(_ report: ReloadReport, signal: Int32) {
        Output.lines(["reload (signal \(signal)):"] + report.lines)
        for entry in report.entries {
            if let error = entry.error { Output.problem(entry.summary, refusal: error) }
        }
        for entry in report.stopped.problems { Output.problem(entry.summary) }
        fflush(nil)
    }
}
