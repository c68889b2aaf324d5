/// When an ``Inject`` gets its service.
public enum InjectMode: Sendable {
    /// When the wrapper is made (with the object that declares it).
    case eager
    /// On first access; a failed attempt is tried again on the next access.
    case lazy
}
