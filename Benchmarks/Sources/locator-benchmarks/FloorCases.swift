import Synchronization

/// The floor: a plain dictionary of objects, looked up and cast to the service protocol. Nothing a
/// keyed locator does can be cheaper than this without giving something up.
final class Floor: @unchecked Sendable {
    // @unchecked: never changed after init, so any number of threads may read it.
    let objects: [String: AnyObject]

    init() {
        objects = Dictionary(uniqueKeysWithValues: Keys.floorKeys.enumerated().map { ($1, spacedService(token: $0 + 1)) })
    }

    @inline(__always)
    func get(_ key: String) -> (any BenchService)? {
        guard let object = objects[key] else { return nil }
        return object as? any BenchService
    }
}

/// The same dictionary behind a `Synchronization.Mutex`, as a mutable registry would need.
final class LockedFloor: Sendable {
    let objects: Mutex<[String: AnyObject]>

    init() {
        objects = Mutex(Floor().objects)
    }

    @inline(__always)
    func get(_ key: String) -> (any BenchService)? {
        objects.withLock { objects in
            guard let object = objects[key] else { return nil }
            return object as? any BenchService
        }
    }
}

enum FloorCases {
    static let unlocked = "floor/unlocked"
    static let locked = "floor/mutex"

    static func cases() -> [BenchCase] {
        let floor = Floor()
        let locked = LockedFloor()
        let held: any BenchService = Service(token: 1)
        return [
            // What every loop costs besides the get: reading the token of a service already in hand.
            BenchCase(name: "baseline/held-service") { iterations in
                let service = opaque(held)
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(service) }
                return sum
            },
            BenchCase(name: unlocked) { iterations in
                let floor = opaque(floor), key = opaque(Keys.atOne.storeKey)
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(floor.get(key)) }
                return sum
            },
            BenchCase(name: Self.locked) { iterations in
                let floor = opaque(locked), key = opaque(Keys.atOne.storeKey)
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(floor.get(key)) }
                return sum
            },
        ]
    }
}
