/// The host a plugin's process serves, as the process tells it that it gave up (``PluginProcess``):
/// the host implements it. A protocol of this room, so that the process calls down to it, not up.
protocol PluginProcessOwner: AnyObject, Sendable {
    /// The process `peer` ended more often than its ``PluginProcesses/RestartPolicy`` allows
    /// (`reason` says how): the host withdraws the plugin it served. Called once, on a thread of its
    /// own that holds no lock of the process (the host takes its own locks there, which a reload or
    /// shutdown that stops this process holds while it waits for the process).
    func processWithdrawn(peer: String, because reason: String)
}
