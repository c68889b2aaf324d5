/// The services a thread (or task) is making right now, innermost on top.
///
/// Frames form a persistent list through `parent`, so pushing one is a single allocation and a
/// path can be read without copying. A task started inside a factory (`async let`, a task group,
/// `Task {}`) inherits the factory's frame as its own top: its path leads through the service being
/// made, which cannot be finished before the task's wait is.
final class ResolutionFrame: Sendable {
    let cell: ObjectIdentifier
    /// Which call of a params slot this frame makes (`.none` for every other service).
    let call: ParamsOnPath
    let service: ServiceIdentity
    let parent: ResolutionFrame?

    init(cell: ObjectIdentifier, call: ParamsOnPath = .none, service: ServiceIdentity, parent: ResolutionFrame?) {
        self.cell = cell
        self.call = call
        self.service = service
        self.parent = parent
    }

    /// How many services this path is making, this one included.
    var depth: Int {
        var count = 0
        var frame: ResolutionFrame? = self
        while let current = frame {
            count += 1
            frame = current.parent
        }
        return count
    }

    /// The services from the frame making `cell` (for `call`) up to this one, or `nil` if it is not on
    /// the path.
    func services(from cell: ObjectIdentifier, call: ParamsOnPath = .none) -> [ServiceIdentity]? {
        var reversed: [ServiceIdentity] = []
        var frame: ResolutionFrame? = self
        while let current = frame {
            reversed.append(current.service)
            if current.cell == cell && current.call.isSameCall(as: call) { return reversed.reversed() }
            frame = current.parent
        }
        return nil
    }

    /// True if `frame` is this frame or one of its ancestors.
    func hasOnPath(_ frame: ResolutionFrame) -> Bool {
        var current: ResolutionFrame? = self
        while let candidate = current {
            if candidate === frame { return true }
            current = candidate.parent
        }
        return false
    }
}
