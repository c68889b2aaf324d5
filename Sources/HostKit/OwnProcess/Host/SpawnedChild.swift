import Foundation
internal import DynamicLoading

/// One child of a plugin's program, started in its sandbox and connected to nothing yet: the one a
/// load or restart serves from at once, or a standby (``PluginProcesses/standby``) that waits for
/// the next restart.
///
/// Invariants: `role` decides, under its lock and once, whose the child's end is: a serving child's
/// end is its generation's (the supervision hears of it); a standby's end only clears the standby.
/// A standby becomes serving only while its end was not handled (``PluginProcess/takeStandby(for:)``).
/// `socket` is this object's own duplicate of the child's socket, taken before the child's end could
/// be handled (``PluginProcess/spawnChild(as:)`` holds `role` meanwhile): the child's own descriptor
/// is closed once its end was handled, and its number may be another file's by the time the host
/// connects. Closed when this object goes.
final class SpawnedChild: Sendable {
    enum Role {
        case standby
        case serving(generation: Int)
        /// A standby whose end was handled before it was taken.
        case ended
    }

    let child: ChildProcess
    let confinement: ChildConfinement?
    let role: Lock<Role>
    let socket: Int32

    init(child: ChildProcess, confinement: ChildConfinement?, role: Lock<Role>, socket: Int32) {
        self.child = child
        self.confinement = confinement
        self.role = role
        self.socket = socket
    }

    deinit {
        close(socket)
    }
}
