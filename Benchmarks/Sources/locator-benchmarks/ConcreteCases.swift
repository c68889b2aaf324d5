@_spi(HostKit) import PluginAPI
import Swinject

/// A final class fetched by its key among a hundred others, each contestant filled alike: what a get
/// costs where no protocol existential is made (the cases in FloorCases cast to one, about 100 ns,
/// which hides what the lookup itself costs). Its floor is a `[String: AnyObject]` lookup and a cast to
/// the class.
enum ConcreteCases {
    static let floorName = "concrete/floor"
    static let locatorName = "concrete/locator-readOnly"

    /// The key of the one concrete service, beside the floor's keys.
    static let key = ServiceLocatorEasyKey<Service>(name: "bench.concrete.atOne")

    static func cases() -> [BenchCase] {
        let service = spacedService(token: 7)
        let objects = UncheckedBox(Floor().objects.merging([key.storeKey: service]) { old, _ in old })
        let locator = LocatorCases.makeLocator(readOnly: false)
        do {
            try locator.addService(key: key, service: service)
        } catch {
            fail("concrete setup: \(error)")
        }
        locator.setReadOnly()
        let container = SwinjectFixture().containerScope
        container.register(Service.self) { _ in service }.inObjectScope(.container)
        let swinject = UncheckedBox(container)
        return [
            BenchCase(name: floorName) { iterations in
                let objects = opaque(objects).value, key = opaque(key.storeKey)
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(objects[key] as? Service) }
                return sum
            },
            BenchCase(name: locatorName) { iterations in
                let locator = opaque(locator), key = opaque(key)
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(locator.getService(key: key)) }
                return sum
            },
            BenchCase(name: "concrete/swinject") { iterations in
                let container = opaque(swinject).value
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(container.resolve(Service.self)) }
                return sum
            },
        ]
    }
}

/// Sums the token of a concrete service; a missing one counts as a failure of the setup.
@inline(__always)
func token(_ service: Service?) -> UInt {
    service.map { UInt(bitPattern: $0.token) } ?? UInt(bitPattern: -1_000_000)
}
