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

    /// Read for every get a resolver of this source answers, written once a load: readers do not
    /// wait for each other.
    private let target: ReadWriteLock<Target>

    /// A source that serves `locator`.
    public init(_ locator: ServiceLocator) {
        target = ReadWriteLock(.locator(locator))
    }

    /// From now on, resolvers reading this source read `locator`.
    public func serve(_ locator: ServiceLocator) {
        target.write { $0 = .locator(locator) }
    }

    /// From now on, resolvers reading this source read whatever `other` serves, unless `other` is
    /// this source or follows it, directly or through others: a cycle would never end a read.
    public func follow(_ other: ServiceSource) {
        var next: ServiceSource? = other
        while let source = next {
            if source === self { return }
            next = if case let .following(followed) = source.target.read() { followed } else { nil }
        }
        target.write { $0 = .following(other) }
    }

    /// The locator served now (a host's current locator; a plugin never holds a source, only
    /// resolvers that read one).
    public var current: ServiceLocator {
        var source = self
        while true {
            switch source.target.read() {
            case let .locator(locator): return locator
            case let .following(next): source = next
            }
        }
    }
}
