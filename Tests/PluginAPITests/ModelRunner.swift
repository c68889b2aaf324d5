import Foundation
@_spi(HostKit) import PluginAPI
import Testing

/// Makes one sequence of operations from a seed. It keeps a model of its own to aim some gets at slots
/// that exist with the right types (the rest hit any key with any type).
struct ModelGenerator {
    private var random: SplitMix64
    private var model = LocatorModel()
    private var registrations = 0
    private var modules = 0

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func sequence(length: Int) -> [ModelOperation] {
        (0..<length).map { _ in
            let operation = next()
            _ = model.apply(operation)
            return operation
        }
    }

    private mutating func entry() -> ModelEntry {
        registrations += 1
        let forms = ModelForm.allCases
        return ModelEntry(registration: registrations, key: random.below(ModelSpace.keys.count),
                          kind: random.below(ModelSpace.kinds.count), form: forms[random.below(forms.count)],
                          params: random.below(ModelSpace.paramsKinds.count), replace: random.chance(25))
    }

    /// A slot of the generator's model, with or without parameters, if there is one.
    private mutating func pickSlot(withParams: Bool) -> (Int, LocatorModel.Slot)? {
        let candidates = model.slots.filter { ($0.value.params != nil) == withParams }.sorted { $0.key < $1.key }
        return random.pick(candidates).map { ($0.key, $0.value) }
    }

    private mutating func next() -> ModelOperation {
        let keys = ModelSpace.keys.count, kinds = ModelSpace.kinds.count
        let roll = random.below(100)
        switch roll {
        case 0..<28:
            return .add(entry())
        case 28..<36:
            return .remove(key: random.below(keys), kind: random.below(kinds))
        case 36..<57:
            let viaProvider = random.chance(25)
            if random.chance(60), let (key, slot) = pickSlot(withParams: false) {
                return .get(key: key, kind: slot.kind, viaProvider: viaProvider)
            }
            return .get(key: random.below(keys), kind: random.below(kinds), viaProvider: viaProvider)
        case 57..<60:
            return .anyGet(key: random.below(keys))
        case 60..<74:
            let value = random.below(10), viaProvider = random.chance(25)
            if random.chance(60), let (key, slot) = pickSlot(withParams: true), let params = slot.params {
                return .paramsGet(key: key, kind: slot.kind, params: params, value: value, viaProvider: viaProvider)
            }
            return .paramsGet(key: random.below(keys), kind: random.below(kinds),
                              params: random.below(ModelSpace.paramsKinds.count), value: value, viaProvider: viaProvider)
        case 74..<76:
            return .setReadOnly(denyClone: random.chance(50))
        case 76..<83:
            return .clone
        case 83..<97:
            modules += 1
            let entries = (0..<(1 + random.below(3))).map { _ in entry() }
            let throwsAfter = random.chance(35) ? random.below(entries.count + 1) : nil
            return .addModule(ModelModuleSpec(name: "M\(modules)", entries: entries, throwsAfter: throwsAfter,
                                              replace: random.chance(15)))
        default:
            return .lateRegistration(entry())
        }
    }
}

/// A sequence whose locator and model disagreed.
struct ModelFailure: CustomStringConvertible {
    let seed: UInt64
    let sequenceLength: Int
    /// The shortest prefix of the sequence that still disagrees.
    let prefix: [ModelOperation]
    /// The prefix with every operation left out that the disagreement does not need.
    let reduced: [ModelOperation]
    /// What differed after the last operation of `reduced`.
    let differences: [String]

    var description: String {
        let numbered = { (operations: [ModelOperation]) in
            operations.enumerated().map { "  \($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        }
        return """
        locator and model disagree: seed \(seed) (replay: MODEL_SEED=\(seed) swift test --filter ModelTests)
        shortest failing prefix, \(prefix.count) of \(sequenceLength) operations:
        \(numbered(prefix))
        reduced to \(reduced.count) operations:
        \(numbered(reduced))
        after the last one:
        \(differences.map { "  " + $0 }.joined(separator: "\n"))
        """
    }
}

struct ModelRunner {
    var plantedBug = false

    /// Runs `operations` on a new locator and a new model; the index of the first step after which
    /// they disagree and what differed, or `nil`.
    func firstDisagreement(_ operations: [ModelOperation]) -> (step: Int, differences: [String])? {
        let harness = LocatorHarness()
        var model = LocatorModel()
        model.plantedBug = plantedBug
        for (step, operation) in operations.enumerated() {
            let outcome = model.apply(operation)
            var expected = model.observation
            expected.outcome = outcome
            let actual = harness.observe(harness.apply(operation))
            if actual != expected { return (step, actual.differences(from: expected)) }
        }
        return nil
    }

    /// Runs the sequence of `seed`; on a disagreement, shrinks it.
    func check(seed: UInt64, length: Int) -> ModelFailure? {
        var generator = ModelGenerator(seed: seed)
        let operations = generator.sequence(length: length)
        guard let found = firstDisagreement(operations) else { return nil }
        // The shortest failing prefix, found by running the prefixes from the shortest up: a fresh run
        // of a prefix must fail at its last step too, or the failure depends on more than the steps.
        let prefixLength = (1...(found.step + 1)).first { firstDisagreement(Array(operations.prefix($0))) != nil }
            ?? found.step + 1
        let prefix = Array(operations.prefix(prefixLength))
        // Then leave out, one at a time, each operation the disagreement does not need.
        var reduced = prefix
        var index = reduced.count - 1
        while index >= 0 {
            var candidate = reduced
            candidate.remove(at: index)
            if firstDisagreement(candidate) != nil { reduced = candidate }
            index -= 1
        }
        let differences = firstDisagreement(reduced)?.differences ?? found.differences
        return ModelFailure(seed: seed, sequenceLength: length, prefix: prefix, reduced: reduced, differences: differences)
    }
}
