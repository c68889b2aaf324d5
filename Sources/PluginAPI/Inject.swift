/// When an ``Inject`` gets its service.
public enum InjectMode: Sendable {
    /// When the wrapper is made (with the object that declares it).
    case eager
    /// On first access; a failed attempt is tried again on the next access.
    case lazy
}

/// Why an ``Inject`` property has no service: the key, where the property is declared, and the cause.
public struct InjectError: Error, CustomStringConvertible {
    /// The store key of the injected service.
    public let key: String
    /// The file (`#fileID`) and line declaring the property.
    public let file: String
    public let line: UInt
    /// What the locator said.
    public let error: any Error

    public var description: String {
        "cannot inject '\(key)' into the property declared at \(file):\(line): \(error)"
    }
}

/// A property whose value is the service a locator holds for a key, in the spirit of ServiceInjects.
///
/// ```swift
/// final class ReportJob {
///     @Inject var clock: any Clock
///     @Inject var notebook: any Notebook
///
///     init(locator: ServiceLocator) {
///         _clock = Inject(Keys.clock, via: locator)                 // gotten now
///         _notebook = Inject(Keys.notebook, via: locator, .lazy)   // gotten on first use
///     }
/// }
/// ```
///
/// Reading a property whose service cannot be had stops the program with an ``InjectError`` that
/// names the key and the declaring file and line; `try $clock.get()` (the projected value) throws it
/// instead, for callers that can recover.
@propertyWrapper
public struct Inject<Key: ServiceLocatorKey> {
    private let box: InjectBox<Key>

    /// Injects the service for `key` from `locator`, now (`.eager`) or on first access (`.lazy`).
    public init(_ key: Key, via locator: ServiceLocator, _ mode: InjectMode = .eager,
                file: StaticString = #fileID, line: UInt = #line) {
        box = InjectBox(key: key, locator: locator, file: "\(file)", line: line)
        if mode == .eager { _ = try? box.get() }
    }

    /// The service; stops the program with an ``InjectError`` if it cannot be had.
    public var wrappedValue: Key.Service {
        do {
            return try box.get()
        } catch {
            fatalError(error.description)
        }
    }

    /// The wrapper itself: `try $property.get()`.
    public var projectedValue: Inject<Key> { self }

    /// The service, or the ``InjectError`` saying which key, where, and why.
    public func get() throws(InjectError) -> Key.Service {
        try box.get()
    }
}

extension Inject: @unchecked Sendable where Key: Sendable, Key.Service: Sendable {}
// @unchecked: the box's state sits behind its lock.

/// The shared state of an ``Inject``: the outcome, once there is one that sticks.
private final class InjectBox<Key: ServiceLocatorKey>: @unchecked Sendable {
    // @unchecked: `outcome` is guarded by its lock; key and locator are read only.
    let key: Key
    let locator: ServiceLocator
    let file: String
    let line: UInt
    private let outcome = Lock<Key.Service?>(nil)

    init(key: Key, locator: ServiceLocator, file: String, line: UInt) {
        self.key = key
        self.locator = locator
        self.file = file
        self.line = line
    }

    func get() throws(InjectError) -> Key.Service {
        if let service = outcome.withLock({ $0 }) { return service }
        let service: Key.Service
        do {
            service = try locator.tryService(key: key)
        } catch {
            throw InjectError(key: key.storeKey, file: file, line: line, error: error)
        }
        // Two first accesses at once both get; the first stored service wins, so all see one instance.
        return outcome.withLock { stored in
            if let stored { return stored }
            stored = service
            return service
        }
    }
}
