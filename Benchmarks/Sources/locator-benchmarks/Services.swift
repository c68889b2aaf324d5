import PluginAPI
import Synchronization

/// The one service protocol every contestant hands out (the floor casts to it, the locator's keys and
/// Swinject's registrations name it).
protocol BenchService: Sendable {
    /// What a caller reads from the service: summed by every case, so each get is used.
    var token: Int { get }
}

/// The one service class behind every slot, registration and dictionary entry.
final class Service: BenchService {
    let token: Int
    init(token: Int) { self.token = token }
}

/// Objects that only keep the services apart (see ``spacedService(token:)``).
private let spacers = Mutex<[Service]>([])

/// A new service with room after it: objects made one after another sit next to each other, and two
/// threads that update the reference counts of two services on one 64-byte cache line slow each other
/// down although they share nothing (false sharing). Three more objects of the same size, kept alive,
/// put the next service at least 96 bytes further on.
func spacedService(token: Int) -> Service {
    let service = Service(token: token)
    spacers.withLock { $0 += (0..<3).map { _ in Service(token: 0) } }
    return service
}

/// The store keys: the same strings for the floor's dictionary, the locator and Swinject's names.
enum Keys {
    typealias Key = ServiceLocatorEasyKey<any BenchService>

    static let atOne = Key(name: "bench.service.atOne")
    static let lazy = Key(name: "bench.service.lazy")
    static let weak = Key(name: "bench.service.weak")
    static let many = Key(name: "bench.service.many")
    static let params = ServiceLocatorParamsEasyKey<any BenchService, Int>(name: "bench.service.params")
    /// One atOne slot per thread, for the cases where two threads get different services.
    static let perThread = [Key(name: "bench.service.thread0"), Key(name: "bench.service.thread1")]
    /// Other slots, so no contestant looks up in a trivially small table.
    static let filler = (0..<100).map { Key(name: "bench.service.filler\($0)") }

    /// Every key that holds an existing instance in the floor's dictionary.
    static var floorKeys: [String] {
        [atOne, lazy, weak, many].map(\.storeKey) + [params.storeKey] + (perThread + filler).map(\.storeKey)
    }
}

/// Sums the tokens of what a get returned; a missing service counts as a failure of the setup.
/// Takes the result by value, so reading it needs no copy of the existential.
@inline(__always)
func token(_ service: consuming (any BenchService)?) -> UInt {
    switch consume service {
    case let .some(service): UInt(bitPattern: service.token)
    case .none: UInt(bitPattern: -1_000_000)
    }
}
