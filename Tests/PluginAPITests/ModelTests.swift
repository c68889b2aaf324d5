import Foundation
@_spi(HostKit) import PluginAPI
import Testing

// A randomized model test: seeded sequences of operations run against the real ServiceLocator and
// against `LocatorModel`, a plain reference model; after every step both must agree on what the step
// returned (a service or the error), on the slot listing, on the read-only state and on how often
// each factory ran.
//
// Replaying a failure: the report names the sequence's seed. Run
//     MODEL_SEED=<seed> swift test --filter ModelTests
// and that seed is the first sequence run (sequence i runs seed MODEL_SEED + i). Without MODEL_SEED
// the seeds start at `ModelTests.defaultSeed`, so every run tests the same sequences.

@Suite struct ModelTests {
    static let defaultSeed: UInt64 = 0x5EED_0001
    private let sequences = 3_000
    private let steps = 40

    /// The first seed: `MODEL_SEED` from the environment (decimal or 0x-hex), else ``defaultSeed``.
    private var seedBase: UInt64 {
        guard let text = ProcessInfo.processInfo.environment["MODEL_SEED"] else { return Self.defaultSeed }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        return parsed ?? Self.defaultSeed
    }

    /// The sequences run on a thread of their own: under ThreadSanitizer they take half a minute,
    /// which would hold a thread of the pool the async tests beside them need.
    @Test func locatorAgreesWithTheModel() async {
        let base = seedBase, sequences = sequences, steps = steps
        let failure = await onAThreadOfItsOwn { () -> String? in
            let runner = ModelRunner()
            for index in 0..<sequences {
                if let failure = runner.check(seed: base &+ UInt64(index), length: steps) { return "\(failure)" }
            }
            return nil
        }
        if let failure { Issue.record("\(failure)") }
    }

    /// The checker itself: a model with a planted mistake (a lazy singleton made again on every get)
    /// disagrees, and the failure shrinks to the few operations that show it.
    @Test func aPlantedMistakeIsFoundAndShrunk() throws {
        let runner = ModelRunner(plantedBug: true)
        let failures = (0..<UInt64(200)).lazy.compactMap { runner.check(seed: Self.defaultSeed &+ $0, length: 40) }
        let failure = try #require(failures.first)
        #expect(failure.reduced.count <= 4, "\(failure)")
        #expect(failure.prefix.count >= failure.reduced.count)
        #expect(failure.description.contains("MODEL_SEED=\(failure.seed)"))
        let last = try #require(failure.reduced.last)
        guard case .get = last else {
            Issue.record("the reduced sequence should end with the get that disagrees: \(failure)")
            return
        }
    }
}
