@_spi(HostKit) import PluginAPI
import Synchronization
import Testing

/// A locator with `ServiceMetrics` counts each slot's gets, failed gets and services made (with how
/// long each took); one without counts nothing.
@Suite struct ServiceMetricsTests {
    /// What was counted, by "origin/key".
    final class Recorder: ServiceMetrics {
        struct Counts: Equatable {
            var got = 0, failed = 0, made = 0
        }
        let counts = Mutex<[String: Counts]>([:])
        let durations = Mutex<[Duration]>([])

        func counters(forKey key: String, origin: String?) -> any ServiceSlotCounters {
            Counter(name: "\(origin ?? "host")/\(key)", recorder: self)
        }

        subscript(_ name: String) -> Counts { counts.withLock { $0[name] ?? Counts() } }

        struct Counter: ServiceSlotCounters {
            let name: String
            let recorder: Recorder
            func got() { recorder.counts.withLock { $0[name, default: Counts()].got += 1 } }
            func failed() { recorder.counts.withLock { $0[name, default: Counts()].failed += 1 } }
            func made(in duration: Duration) {
                recorder.counts.withLock { $0[name, default: Counts()].made += 1 }
                recorder.durations.withLock { $0.append(duration) }
            }
        }
    }

    struct Broken: Error {}

    @Test func everyKindOfGetIsCountedBySlot() async throws {
        let metrics = Recorder()
        let locator = ServiceLocator(metrics: metrics)
        let lazy = ServiceLocatorEasyKey<String>(name: "lazy")
        let many = ServiceLocatorEasyKey<Int>(name: "many")
        let failing = ServiceLocatorEasyKey<String>(name: "failing")
        let params = ServiceLocatorParamsEasyKey<String, Int>(name: "params")
        let asyncKey = ServiceLocatorEasyKey<String>(name: "async")
        let counter = Mutex(0)
        try locator.addLazyService(key: lazy) {
            for _ in 0 ..< 1000 { counter.withLock { $0 += 1 } }
            return "made"
        }
        try locator.addService(key: many, mode: .many) { counter.withLock { $0 += 1; return $0 } }
        try locator.addLazyService(key: failing) { () throws -> String in throw Broken() }
        try locator.addService(key: params) { (number: Int) in "\(number)" }
        try locator.addAsyncService(key: asyncKey, mode: .lazy) { "awaited" }
        locator.setReadOnly(denyClone: false)

        for _ in 0 ..< 3 { #expect(locator.getService(key: lazy) == "made") }
        _ = locator.getService(key: many)
        _ = locator.getService(key: many)
        #expect(locator.getService(key: failing) == nil)
        #expect(locator.getService(key: ServiceLocatorEasyKey<Int>(name: "lazy")) == nil)  // another type
        #expect(try locator.tryService(key: params, params: 7) == "7")
        #expect(try await locator.tryServiceAsync(key: asyncKey) == "awaited")
        #expect(try await locator.anyService(storeKey: "lazy") as? String == "made")

        #expect(metrics["host/lazy"] == .init(got: 4, failed: 1, made: 1))
        #expect(metrics["host/many"] == .init(got: 2, failed: 0, made: 2))
        #expect(metrics["host/failing"] == .init(got: 0, failed: 1, made: 0))
        #expect(metrics["host/params"].got == 1)
        #expect(metrics["host/async"] == .init(got: 1, failed: 0, made: 1))
        #expect(metrics.durations.withLock { $0 }.allSatisfy { $0 > .zero })

        // A clone counts into the same slots' counters; its new slots are counted too.
        let clone = try locator.clone()
        try clone.addService(key: ServiceLocatorEasyKey<Int>(name: "new"), service: 1)
        _ = clone.getService(key: lazy)
        _ = clone.getService(key: ServiceLocatorEasyKey<Int>(name: "new"))
        #expect(metrics["host/lazy"].got == 5)
        #expect(metrics["host/new"].got == 1)
    }

    /// A module's slots are counted under its name, as a host's plugin's are.
    @Test func aModulesSlotsAreCountedUnderItsName() throws {
        struct Clock: Module {
            func registerServices(in registrar: ModuleRegistrar) throws {
                try registrar.addLazyService(key: ServiceLocatorEasyKey<Int>(name: "tick")) { 1 }
                try registrar.addService(key: ServiceLocatorEasyKey<Int>(name: "now"), mode: .atOne) { 2 }
            }
        }
        let metrics = Recorder()
        let locator = ServiceLocator(metrics: metrics)
        try locator.addModule(Clock())
        _ = locator.getService(key: ServiceLocatorEasyKey<Int>(name: "tick"))
        _ = locator.getService(key: ServiceLocatorEasyKey<Int>(name: "now"))
        #expect(metrics["Clock/tick"] == .init(got: 1, failed: 0, made: 1))
        #expect(metrics["Clock/now"] == .init(got: 1, failed: 0, made: 1))
    }
}
