/// The two steps of one session change, each run for every observer in turn: first `general` (a
/// provider deactivates its service and prepares the new session's), then `make` (an `atOne`
/// provider makes its service), so that a factory making its service in the `make` step finds the
/// other services already switched to the new session.
public enum ServiceSessionChangeStep: Sendable, Hashable {
    /// Every observer learns of the change, before any service of the new session is made.
    case general
    /// Services made at once for the new session are made.
    case make
}
