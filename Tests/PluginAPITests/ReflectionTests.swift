@_spi(HostKit) import PluginAPI
import Testing

/// `Mirror` reads private stored properties: what a plugin is lent must not lead, by reflection, to
/// the locator behind it (a plugin did remove another's slot that way, with no SPI imported).
@Suite struct ReflectionTests {
    /// Every value reflection reaches from `subject`, `depth` levels deep.
    private func reachable(from subject: Any, depth: Int = 6) -> [Any] {
        guard depth > 0 else { return [] }
        return Mirror(reflecting: subject).children.flatMap { [$0.value] + reachable(from: $0.value, depth: depth - 1) }
    }

    private func leadsToALocator(_ subject: Any) -> Bool {
        reachable(from: subject).contains { $0 is ServiceLocator || $0 is ServiceSource }
    }

    @Test func neitherARegistrarNorAResolverLeadsToALocator() throws {
        let locator = ServiceLocator()
        let seen = Collector<String>()
        try locator.addModule(ClosureModule(name: "Reflecting") { registrar in
            seen.append(leadsToALocator(registrar) ? "registrar leads to a locator" : "registrar")
            seen.append(leadsToALocator(registrar.services) ? "resolver leads to a locator" : "resolver")
            // A locator is a resolver; what a registrar lends is a resolver only, which no cast changes.
            seen.append(registrar.services is ServiceLocator ? "lent the locator itself" : "lent a resolver")
        })
        #expect(seen.all == ["registrar", "resolver", "lent a resolver"])
        #expect(!leadsToALocator(ServiceResolver(source: ServiceSource(locator))))
    }

    /// Sources that follow each other in a circle would never end a read: the second follow is refused.
    @Test func aSourceDoesNotFollowOneThatFollowsIt() throws {
        let first = ServiceLocator(), second = ServiceLocator()
        try first.addService(key: Keys.widget, service: Widget(serial: 1))
        try second.addService(key: Keys.widget, service: Widget(serial: 2))
        let a = ServiceSource(first), b = ServiceSource(second)
        a.follow(b)
        b.follow(a)
        #expect(try ServiceResolver(source: a).tryService(key: Keys.widget).serial == 2)
        #expect(try ServiceResolver(source: b).tryService(key: Keys.widget).serial == 2)
    }
}
