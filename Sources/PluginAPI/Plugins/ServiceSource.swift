/// Where ``ServiceResolver``s read: one locator, which a host replaces as it publishes loads, or
/// another source whose locator it follows. For hosts; plugins only ever see the resolvers.
///
/// A host keeps one source for its published services, and serves each new locator from it. Each load gets a source of its own that
/// serves the locator being built, so the load's plugins see what is registered so far while older
/// plugins still see the published services; once the load is published, its source follows the
/// host's, and every resolver of every load reads the host's current services from then on.
@_spi(HostKit)
public final class ServiceSource: Sendable {
    private enum Target: Sendable {
        case locator(ServiceLocator)
        case following(ServiceSource)
    }

    private let target: Lock<Target>

    /// A source that serves `locator`.
    public init(_ locator: ServiceLocator) {
        target = Lock(.locator(locator))
    }

    /// From now on, resolvers reading this source read `locator`.
    public func serve(_ locator: ServiceLocator) {
        target.withLock { $0 = .locator(locator) }
    }

    /// From now on, resolvers reading this source read whatever `other` serves, unless `other` is
    /// this source or follows it, directly or through others: a cycle would never end a read.
    public func follow(_ other: ServiceSource) {
        var next: ServiceSource? = other
        while let source = next {
            if source === self { return }
            next = source.target.withLock { if case let .following(followed) = $0 { followed } else { nil } }
        }
        target.withLock { $0 = .following(other) }
    }

    /// The locator served now.
    var current: ServiceLocator {
        var source = self
        while true {
            switch source.target.withLock({ $0 }) {
            case let .locator(locator): return locator
            case let .following(next): source = next
            }
        }
    }
}
