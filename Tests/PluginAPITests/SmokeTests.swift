import PluginAPI
import Testing

protocol Greeter: Sendable { func greet(_ name: String) -> String }
final class English: Greeter { func greet(_ name: String) -> String { "Hello, \(name)" } }

@Test func lazyServiceRoundTrip() throws {
    let locator = ServiceLocator()
    let key = ServiceLocatorEasyKey<any Greeter>()
    try locator.addLazyService(key: key) { English() }
    locator.setReadOnly()
    #expect(try locator.tryService(key: key).greet("x") == "Hello, x")
}
