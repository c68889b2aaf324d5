import Dependencies

/// pointfreeco/swift-dependencies 1.17 holding the concrete service (ConcreteCases): what a Swift
/// program that reaches for it pays for a read of a `@Dependency` property, its live value and one
/// overridden for the scope of `withDependencies` (as its tests and previews do).
enum DependenciesCases {
    static func cases() -> [BenchCase] {
        let live = BenchCase(name: "concrete/dependencies") { iterations in
            let reader = opaque(ConcreteReader())
            var sum: UInt = 0
            for _ in 0..<iterations { sum &+= token(reader.service) }
            return sum
        }
        let overridden = BenchCase(name: "concrete/dependencies-overridden") { iterations in
            withDependencies { $0.benchConcrete = spacedService(token: 7) } operation: {
                let reader = opaque(ConcreteReader())
                var sum: UInt = 0
                for _ in 0..<iterations { sum &+= token(reader.service) }
                return sum
            }
        }
        return [live, overridden]
    }
}

/// What reads the dependency, as a feature's model would.
struct ConcreteReader {
    @Dependency(\.benchConcrete) var service
}

private enum BenchConcreteKey: DependencyKey {
    static let liveValue = spacedService(token: 7)
}

extension DependencyValues {
    var benchConcrete: Service {
        get { self[BenchConcreteKey.self] }
        set { self[BenchConcreteKey.self] = newValue }
    }
}
