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
/// Reading a property whose service cannot be had stops the program with an ``ServiceLocatorError/injectionFailed(key:file:line:error:)`` that
/// names the key and the declaring file and line; `try $clock.get()` (the projected value) throws it
/// instead, for callers that can recover.
@propertyWrapper
public struct Inject<Service: Sendable>: Sendable {
    private let box: InjectBox<Service>

    /// Injects the service for `key` from `services` (a ``ServiceLocator``, or what a plugin's
    /// registrar or start hook lends it), now (`.eager`) or on first access (`.lazy`).
    public init<Key: ServiceLocatorKey>(_ key: Key, via services: ServiceResolver, _ mode: InjectMode = .eager,
                                        file: StaticString = #fileID, line: UInt = #line)
    where Key.Service == Service {
        self.init(key.storeKey, mode, file: file, line: line) { try services.tryService(key: key) }
    }

    private init(_ storeKey: String, _ mode: InjectMode, file: StaticString, line: UInt,
                 resolve: @escaping @Sendable () throws -> Service) {
        box = InjectBox(key: storeKey, file: "\(file)", line: line, resolve: resolve)
        if mode == .eager { _ = try? box.get() }
    }

    /// The service; stops the program with an ``ServiceLocatorError/injectionFailed(key:file:line:error:)`` if it cannot be had.
    public var wrappedValue: Service {
        do {
            return try box.get()
        } catch {
            fatalError("\(error)")
        }
    }

    /// The wrapper itself: `try $property.get()`.
    public var projectedValue: Inject<Service> { self }

    /// The service, or the ``ServiceLocatorError/injectionFailed(key:file:line:error:)`` saying which key, where, and why.
    public func get() throws(ServiceLocatorError) -> Service {
        try box.get()
    }
}

/// The shared state of an ``Inject``: the service, once one was gotten.
private final class InjectBox<Service: Sendable>: Sendable {
    let key: String
    let file: String
    let line: UInt
    private let resolve: @Sendable () throws -> Service
    private let outcome = Lock<Service?>(nil)

    init(key: String, file: String, line: UInt, resolve: @escaping @Sendable () throws -> Service) {
        self.key = key
        self.file = file
        self.line = line
        self.resolve = resolve
    }

    func get() throws(ServiceLocatorError) -> Service {
        if let service = outcome.withLock({ $0 }) { return service }
        let service: Service
        do {
            service = try resolve()
        } catch {
            throw ServiceLocatorError.injectionFailed(key: key, file: file, line: line, error: error)
        }
        // Two first accesses at once both get; the first stored service wins, so all see one instance.
        return outcome.withLock { stored in
            if let stored { return stored }
            stored = service
            return service
        }
    }
}
