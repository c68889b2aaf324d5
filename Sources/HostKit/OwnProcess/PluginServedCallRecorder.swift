/// Takes the calls the host's plugins in processes of their own served (``PluginProcesses/servedCalls``).
/// Called on a queue of the host's, in the order each process sent them; one that blocks holds that
/// queue, not the plugin's calls (past a backlog, later calls are not told).
public protocol PluginServedCallRecorder: Sendable {
    /// `call` was served.
    func record(_ call: PluginServedCall)
}
