@_spi(HostKit) import PluginAPI
import Testing

/// A host serves each load's locator from its source while the resolvers it lent read it, on any
/// thread, for every get.
@Suite struct ServiceSourceTests {
    /// Readers of a source, and of one that follows it, see the locators served in the order they
    /// were served, never one from before one they saw, and the last in the end.
    @Test func readersSeeTheLocatorsServedInOrderWhileTheyAreServed() throws {
        let locators = try (0..<500).map { serial in
            let locator = ServiceLocator()
            try locator.addService(key: Keys.widget, service: Widget(serial: serial))
            locator.setReadOnly()
            return locator
        }
        let source = ServiceSource(locators[0])
        let follower = ServiceSource(ServiceLocator())
        follower.follow(source)
        let wrong = Collector<String>()
        let finished = runOnThreads(3) { index in
            guard index > 0 else {
                for locator in locators.dropFirst() { source.serve(locator) }
                return
            }
            let resolver = ServiceResolver(source: index == 1 ? source : follower)
            var last = -1
            while last < locators.count - 1 {
                guard let serial = resolver.getService(key: Keys.widget)?.serial else {
                    wrong.append("reader \(index) found no widget after \(last)")
                    return
                }
                if serial < last { wrong.append("reader \(index) saw \(serial) after \(last)") }
                last = serial
            }
        }
        #expect(finished, "the readers did not see the last locator")
        #expect(wrong.all.isEmpty)
    }
}
