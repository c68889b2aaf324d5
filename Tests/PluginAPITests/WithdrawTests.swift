import Foundation
@_spi(HostKit) import PluginAPI
import Testing

/// ``ServiceLocator/withdraw(_:)``: what a host does to the slots of a plugin dropped after its
/// locator became read-only.
@Suite struct WithdrawTests {
    private let keys = (0..<64).map { ServiceLocatorEasyKey<Int>(name: "slot.\($0)") }

    /// Every slot is kept or gone as asked, for every reader: gets, listings, clones; the locator
    /// stays read-only.
    @Test func withdrawnSlotsAreGoneFromAReadOnlyLocatorForEveryReader() throws {
        let locator = ServiceLocator()
        for (index, key) in keys.enumerated() { try locator.addService(key: key, service: index) }
        locator.setReadOnly(denyClone: false)
        let gone = keys.filter { $0.storeKey.hasSuffix("7") }
        locator.withdraw(gone.map(\.storeKey) + ["never.there"])
        #expect(locator.isReadOnly)
        #expect(locator.slots.count == keys.count - gone.count)
        for (index, key) in keys.enumerated() {
            let withdrawn = gone.contains { $0.storeKey == key.storeKey }
            #expect(locator.getService(key: key) == (withdrawn ? nil : index))
            #expect((locator.slotInfo(forKey: key.storeKey) == nil) == withdrawn)
        }
        #expect(Set(try locator.clone().slots.map(\.key)) == Set(locator.slots.map(\.key)))
        #expect(throws: ServiceLocatorError.self) { try locator.addService(key: keys[7], service: 7) }
    }

    /// Gets on other threads go on while slots are withdrawn: each finds a kept slot every time
    /// (under ThreadSanitizer: no race with the table that replaces the frozen one).
    @Test func getsOfKeptSlotsRacingAWithdrawalAlwaysSucceed() async throws {
        let locator = ServiceLocator()
        for (index, key) in keys.enumerated() { try locator.addService(key: key, service: index) }
        locator.setReadOnly(denyClone: false)
        let kept = Array(keys.prefix(8))
        let misses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    var misses = 0
                    for round in 0..<20_000 where locator.getService(key: kept[round % kept.count]) == nil {
                        misses += 1
                    }
                    return misses
                }
            }
            group.addTask {
                for key in keys.dropFirst(8) { locator.withdraw([key.storeKey]) }
                return 0
            }
            return await group.reduce(0, +)
        }
        #expect(misses == 0)
        #expect(locator.slots.count == kept.count)
    }

    @Test func aMutableLocatorJustLosesTheSlots() throws {
        let locator = ServiceLocator()
        try locator.addService(key: keys[0], service: 0)
        try locator.addService(key: keys[1], service: 1)
        locator.withdraw([keys[0].storeKey])
        #expect(locator.slots.map(\.key) == [keys[1].storeKey])
        #expect(!locator.isReadOnly)
    }
}
