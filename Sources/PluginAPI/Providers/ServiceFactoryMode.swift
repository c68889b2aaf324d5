/// How a provider keeps the service its factory makes.
public enum ServiceFactoryMode: String, Sendable, CaseIterable {
    /// Made once, when the provider is created; a failure is remembered and returned on every get.
    case atOne
    /// Made once, on the first get; a failure is returned and the next get tries again.
    case lazy
    /// Made on a get when no instance is alive, and kept only while someone else holds it.
    /// Only class instances can be held weakly: for a value, every get makes a new one.
    case weak
    /// Made anew on every get.
    case many
}
