@_spi(HostKit) import PluginAPI
import Synchronization

/// The locator under test, filled like the floor: the same keys, the same service class.
enum LocatorCases {
    static func makeLocator(readOnly: Bool, metrics: (any ServiceMetrics)? = nil) -> ServiceLocator {
        let locator = ServiceLocator(metrics: metrics)
        do {
            try locator.addService(key: Keys.atOne, service: spacedService(token: 1))
            try locator.addLazyService(key: Keys.lazy) { Service(token: 2) }
            try locator.addService(key: Keys.weak, mode: .weak) { Service(token: 3) }
            try locator.addService(key: Keys.many) { Service(token: 4) }
            try locator.addService(key: Keys.params) { (token: Int) in Service(token: token) }
            for (index, key) in Keys.perThread.enumerated() {
                try locator.addService(key: key, service: spacedService(token: 10 + index))
            }
            for (index, key) in Keys.filler.enumerated() {
                try locator.addLazyService(key: key) { Service(token: 100 + index) }
            }
        } catch {
            fail("locator setup: \(error)")
        }
        if readOnly { locator.setReadOnly() }
        return locator
    }

    /// `locator/<state>/<mode>` for the five modes, before (`mutable`) and after `setReadOnly` (`readOnly`),
    /// `provider/<mode>` for a provider held directly, and `lent/<grant>/atOne` for a get through a
    /// resolver lent to a plugin (PH-0031).
    static func cases() -> [BenchCase] {
        let readOnly = makeLocator(readOnly: true)
        return modeCases(makeLocator(readOnly: false), state: "mutable")
            + modeCases(readOnly, state: "readOnly")
            + providerCases(readOnly)
            + lentCases(readOnly)
            + [getCase("metrics/counted/atOne", makeLocator(readOnly: true, metrics: AtomicCounts()), Keys.atOne)]
    }

    /// A metrics backend as small as one can be: an atomic add per get, per slot (what a
    /// swift-metrics counter does, without its lookup).
    final class AtomicCounts: ServiceMetrics {
        func counters(forKey key: String, origin: String?) -> any ServiceSlotCounters { Counts() }

        final class Counts: ServiceSlotCounters {
            let gets = Atomic<Int>(0), failures = Atomic<Int>(0), made = Atomic<Int>(0)
            func got() { gets.add(1, ordering: .relaxed) }
            func failed() { failures.add(1, ordering: .relaxed) }
            func made(in duration: Duration) { made.add(1, ordering: .relaxed) }
        }
    }

    /// A read-only atOne get through what a host lends a plugin: `ungranted` reads every key (as
    /// before grants), `granted` checks the key against the plugin's grant of 5 keys, `grant-200`
    /// against a grant of 200 (a plugin that provides many keys).
    private static func lentCases(_ locator: ServiceLocator) -> [BenchCase] {
        let source = ServiceSource(locator)
        let few = [Keys.atOne.storeKey, Keys.lazy.storeKey, Keys.weak.storeKey, Keys.many.storeKey, Keys.params.storeKey]
        let many = few + Keys.filler.map(\.storeKey) + (0..<95).map { "bench.grant.\($0)" }
        let resolvers = [
            ("ungranted", ServiceResolver(source: source)),
            ("granted", ServiceResolver(source: source, lentTo: "bench", granting: few)),
            ("grant-200", ServiceResolver(source: source, lentTo: "bench", granting: many)),
        ]
        return resolvers.map { grant, resolver in
            BenchCase(name: "lent/\(grant)/atOne") { iterations in
                let resolver = opaque(resolver), key = opaque(Keys.atOne)
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(resolver.getService(key: key)) }
                return sum
            }
        }
    }

    static func name(_ state: String, _ mode: String) -> String { "locator/\(state)/\(mode)" }

    private static func modeCases(_ locator: ServiceLocator, state: String) -> [BenchCase] {
        // Made before the measurement: lazy after creation, weak while held.
        _ = locator.getService(key: Keys.lazy)
        let heldWeak = locator.getService(key: Keys.weak)
        return [
            getCase(name(state, "atOne"), locator, Keys.atOne),
            getCase(name(state, "lazy"), locator, Keys.lazy),
            BenchCase(name: name(state, "weak")) { iterations in
                withExtendedLifetime(heldWeak) {
                    let locator = opaque(locator), key = opaque(Keys.weak)
                    var sum: UInt = 0
                    for _ in 0..<iterations { sum &+= token(locator.getService(key: key)) }
                    return sum
                }
            },
            getCase(name(state, "many"), locator, Keys.many),
            BenchCase(name: name(state, "params")) { iterations in
                let locator = opaque(locator), key = opaque(Keys.params), params = opaque(7)
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(try? locator.tryService(key: key, params: params)) }
                return sum
            },
        ]
    }

    private static func getCase(_ name: String, _ locator: ServiceLocator, _ key: Keys.Key) -> BenchCase {
        BenchCase(name: name) { iterations in
            let locator = opaque(locator), key = opaque(key)
            var sum: UInt = 0
            for _ in 0..<iterations { sum &+= token(locator.getService(key: key)) }
            return sum
        }
    }

    private static func providerCases(_ locator: ServiceLocator) -> [BenchCase] {
        [("atOne", Keys.atOne), ("lazy", Keys.lazy)].map { mode, key in
            guard let provider = try? locator.tryServiceProvider(key: key) else { fail("no provider for \(key.storeKey)") }
            return BenchCase(name: "provider/\(mode)") { iterations in
                let provider = opaque(provider)
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(provider.getServiceAsOptional()) }
                return sum
            }
        }
    }
}
