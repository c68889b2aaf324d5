import Swinject

/// Swinject 2.10 filled like the floor and the locator: the same protocol, class and key strings.
final class SwinjectFixture: @unchecked Sendable {
    // @unchecked: the containers are filled in init and only resolved from afterwards; the cases that
    // run on several threads go through `synchronized`.
    /// `.container` scope: the unnamed registration, one named per key, and the fillers.
    let containerScope = Container()
    /// `.transient` scope: a new instance on every resolve.
    let transient = Container()
    /// `containerScope.synchronize()`: the resolver Swinject offers for use from several threads.
    let synchronized: any Resolver

    init() {
        containerScope.register((any BenchService).self) { _ in spacedService(token: 1) }.inObjectScope(.container)
        let named = [Keys.atOne] + Keys.perThread + Keys.filler
        for (index, key) in named.enumerated() {
            containerScope.register((any BenchService).self, name: key.storeKey) { _ in spacedService(token: 1 + index) }
                .inObjectScope(.container)
        }
        transient.register((any BenchService).self) { _ in Service(token: 2) }.inObjectScope(.transient)
        synchronized = containerScope.synchronize()
    }
}

enum SwinjectCases {
    static let containerScope = "swinject/container"

    static func cases() -> [BenchCase] {
        let fixture = SwinjectFixture()
        return [
            resolveCase(containerScope, fixture.containerScope),
            resolveCase("swinject/transient", fixture.transient),
            resolveCase("swinject/named", fixture.containerScope, name: Keys.atOne.storeKey),
            resolveCase("swinject/synchronize", fixture.synchronized),
        ]
    }

    /// Resolves `any BenchService` (registered under `name`, if given) from `resolver`.
    private static func resolveCase(_ caseName: String, _ resolver: any Resolver, name: String? = nil) -> BenchCase {
        let box = UncheckedBox(resolver)
        return BenchCase(name: caseName) { iterations in
            let resolver = opaque(box).value, name = opaque(name)
            var sum: UInt = 0
            for _ in 0..<iterations { sum &+= token(resolver.resolve((any BenchService).self, name: name)) }
            return sum
        }
    }
}

/// Carries a resolver into a `@Sendable` case: each case resolves from one thread at a time.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
