/// A service that holds something to let go of, such as a file or a connection.
///
/// When a host shuts down, after a plugin's ``Module/shutdown()`` hook it closes that plugin's
/// services that exist then and conform to this protocol (a lazy service never made is not made for
/// it; an instance registered under several keys is closed once). Each close is bounded by the
/// shutdown timeout, and a failure is reported like a hook's. A plugin the host drops at start-up
/// has what it made closed at once.
public protocol ClosableService: Sendable {
    /// Releases what the service holds. Called once, at shutdown after its plugin's shutdown hook, or
    /// when its plugin is dropped at start-up.
    func close() async throws
}
