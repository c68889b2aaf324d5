import Dispatch
import Foundation
import PluginAPI
import Synchronization
import Testing

// MARK: Services

/// A service protocol, stored as an existential (`any Greeter`).
protocol Greeter: Sendable {
    func greet(_ name: String) -> String
}

final class EnglishGreeter: Greeter {
    func greet(_ name: String) -> String { "Hello, \(name)" }
}

final class FrenchGreeter: Greeter {
    func greet(_ name: String) -> String { "Bonjour, \(name)" }
}

/// A class service whose `serial` tells which call of its factory made it.
final class Widget: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

/// A value service: it cannot be held weakly.
struct Point: Sendable, Equatable {
    let serial: Int
}

/// A service made from parameters.
final class Label: Sendable {
    let text: String
    let serial: Int
    init(text: String, serial: Int) {
        self.text = text
        self.serial = serial
    }
}

/// What test factories throw.
struct SomeError: Error, Equatable, CustomStringConvertible {
    var code = 1
    var description: String { "SomeError(\(code))" }
}

// MARK: Keys

enum Keys {
    static let greeter = ServiceLocatorEasyKey<any Greeter>()
    static let widget = ServiceLocatorEasyKey<Widget>()
    static let point = ServiceLocatorEasyKey<Point>()
    static let label = ServiceLocatorParamsEasyKey<Label, String>()
    static let optionalLabel = ServiceLocatorParamsEasyKey<Label, String?>(name: "optionalLabel")

    static func widget(_ name: String) -> ServiceLocatorEasyKey<Widget> { ServiceLocatorEasyKey(name: name) }
    static func greeter(_ name: String) -> ServiceLocatorEasyKey<any Greeter> { ServiceLocatorEasyKey(name: name) }
    static func label(_ name: String) -> ServiceLocatorParamsEasyKey<Label, String> { ServiceLocatorParamsEasyKey(name: name) }
}

/// The full type names the locator reports.
enum TypeNames {
    static let greeter = String(reflecting: (any Greeter).self)
    static let widget = String(reflecting: Widget.self)
    static let label = String(reflecting: Label.self)
    static let string = String(reflecting: String.self)
    static let int = String(reflecting: Int.self)
}

// MARK: Counting

/// A thread-safe call counter.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .sequentiallyConsistent) }

    /// Counts one call and returns its number, starting at 1.
    @discardableResult
    func increment() -> Int {
        count.add(1, ordering: .sequentiallyConsistent).newValue
    }
}

/// Makes widgets numbered by call; the first `failures` calls throw `SomeError(code: call number)`.
struct WidgetFactory: ServiceFactory {
    let mode: ServiceFactoryMode
    var failures = 0
    var delay: TimeInterval = 0
    let counter = Counter()

    func makeService() throws -> Widget {
        let call = counter.increment()
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        if call <= failures { throw SomeError(code: call) }
        return Widget(serial: call)
    }

    /// The factory as a closure, for the closure forms of the `add` calls.
    var make: @Sendable () throws -> Widget { makeService }
}

/// Makes points (values) numbered by call.
struct PointFactory: ServiceFactory {
    let mode: ServiceFactoryMode
    let counter = Counter()

    func makeService() throws -> Point { Point(serial: counter.increment()) }
}

/// Makes labels from their text, numbered by call.
struct LabelFactory: ServiceParamsFactory {
    let counter = Counter()

    func makeService(params: String) throws -> Label {
        Label(text: params, serial: counter.increment())
    }
}

// MARK: Logging

/// Keeps every event it is given.
final class RecordingLogger: ServiceLogger {
    private let recorded = Collector<ServiceLogEvent>()

    func log(_ event: ServiceLogEvent) {
        recorded.append(event)
    }

    var events: [ServiceLogEvent] { recorded.all }
}

// MARK: Threads

/// Values handed back from other threads. An NSLock (a pthread mutex underneath), not a
/// Synchronization.Mutex, which ThreadSanitizer cannot see through on Linux.
final class Collector<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `items` is touched only under `lock`.
    private let lock = NSLock()
    private var items: [Element] = []

    func append(_ item: Element) {
        lock.withLock { items.append(item) }
    }

    var all: [Element] { lock.withLock { items } }
}

/// How long a test waits for another thread before it fails instead of hanging: a deadlock, the
/// point of such a wait, never ends, so the bound is generous. With two builds beside the suite
/// under ThreadSanitizer on 2 cores, a thread that is not hung can wait its turn for many seconds
/// (10 s was once too short; under AddressSanitizer beside two package builds, threads the test
/// waited for took over 120 s once); this is as long as `withTimeout`'s.
let bound: TimeInterval = 300

/// Waits for `semaphore` at most `bound` seconds; false on timeout.
func wait(_ semaphore: DispatchSemaphore) -> Bool {
    semaphore.wait(timeout: .now() + bound) == .success
}

/// Runs `body(index)` on `count` threads of their own, released together; false if they did not
/// all finish within `bound` seconds.
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        Thread {
            _ = wait(start)
            body(index)
            group.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    return group.wait(timeout: .now() + bound) == .success
}

/// Runs `body` on a thread of its own; wait on the returned semaphore for it to finish.
func runOnThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done
}

/// Runs `body` on a thread of its own and awaits its result: blocking work that would otherwise hold
/// a thread of the small pool async tests run on.
func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// ``runOnThreads(_:_:)`` for an async test: its threads run while the test awaits them, instead of
/// holding a thread of the pool, which the async tests running beside it need.
/// Makes `changes` session changes on one thread (`change(round)`) while `readers` other threads get
/// (`get()` returns a problem, or nil): each at least 500 times, and on until the changes are over.
/// Returns the problems and how many gets ran, or nil if the threads did not finish.
func getsRacingChanges(readers: Int, changes: Int, change: @escaping @Sendable (Int) -> Void,
                       get: @escaping @Sendable () -> String?) -> (problems: [String], gets: Int)? {
    let problems = Collector<String>()
    let gets = Counter(), changesDone = Counter()
    let finished = runOnThreads(readers + 1) { index in
        if index == 0 {
            for round in 0..<changes { change(round) }
            changesDone.increment()
        } else {
            var round = 0
            while round < 500 || changesDone.value == 0 {
                round += 1
                if let problem = get() { problems.append(problem) }
                gets.increment()
            }
        }
    }
    return finished ? (problems.all, gets.value) : nil
}

func runOnThreadsAwaiting(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async -> Bool {
    await onAThreadOfItsOwn { runOnThreads(count, body) }
}

// MARK: Errors

/// A ``ServiceLocatorError`` with every payload made comparable (a wrapped error by its description).
enum LocatorFailure: Equatable {
    case serviceNotFound(key: String, requested: String, closeMatches: [String])
    case typeMismatch(key: String, registered: String, requested: String)
    case wrongParams(key: String, registered: String, requested: String)
    case keyAlreadyRegistered(key: String, registeredBy: String?, attemptedBy: String?)
    case readOnly(operation: String)
    case cloneDenied
    case moduleFailed(module: String, error: String)
    case registrationClosed(module: String)
    case asyncService(key: String)
    case proxySlotRefused(key: String)
    case wrongProxyType(key: String, proxy: String, service: String)
    case notGranted(key: String, plugin: String)
    /// A case added to ``ServiceLocatorError`` after these tests were written.
    case unknown(String)
}

extension ServiceLocatorError {
    var failure: LocatorFailure {
        switch self {
        case let .serviceNotFound(key, requested, closeMatches):
            .serviceNotFound(key: key, requested: requested, closeMatches: closeMatches)
        case let .typeMismatch(key, registered, requested):
            .typeMismatch(key: key, registered: registered, requested: requested)
        case let .wrongParams(key, registered, requested):
            .wrongParams(key: key, registered: registered, requested: requested)
        case let .keyAlreadyRegistered(key, registeredBy, attemptedBy):
            .keyAlreadyRegistered(key: key, registeredBy: registeredBy, attemptedBy: attemptedBy)
        case let .readOnly(operation):
            .readOnly(operation: operation)
        case .cloneDenied:
            .cloneDenied
        case let .moduleFailed(module, error):
            .moduleFailed(module: module, error: String(describing: error))
        case let .registrationClosed(module):
            .registrationClosed(module: module)
        case let .asyncService(key):
            .asyncService(key: key)
        case let .proxySlotRefused(key, _):
            .proxySlotRefused(key: key)
        case let .wrongProxyType(key, proxy, service):
            .wrongProxyType(key: key, proxy: proxy, service: service)
        case let .notGranted(key, plugin):
            .notGranted(key: key, plugin: plugin)
        case .resolutionTooDeep, .cycle, .injectionFailed:
            .unknown(String(describing: self))
        @unknown default:
            .unknown(String(describing: self))
        }
    }
}

/// Expects `body` to throw a ``ServiceLocatorError`` equal to `expected`; returns it.
@discardableResult
func expectLocatorError<T>(_ expected: LocatorFailure, sourceLocation: SourceLocation = #_sourceLocation,
                           _ body: () throws -> T) -> ServiceLocatorError? {
    let error = #expect(throws: ServiceLocatorError.self, sourceLocation: sourceLocation) { _ = try body() }
    if let error {
        #expect(error.failure == expected, sourceLocation: sourceLocation)
    }
    return error
}

/// Expects `body` to throw ``ServiceLocatorError/moduleFailed(module:error:)`` for `module`; returns the
/// error it wraps.
func expectModuleFailure<T>(_ module: String, sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws -> T) -> (any Error)? {
    let error = #expect(throws: ServiceLocatorError.self, sourceLocation: sourceLocation) { _ = try body() }
    guard case let .moduleFailed(name, inner)? = error else {
        if let error { Issue.record("expected moduleFailed, got \(error)", sourceLocation: sourceLocation) }
        return nil
    }
    #expect(name == module, sourceLocation: sourceLocation)
    return inner
}

/// Expects `body` to throw a ``ServiceObtainError``; returns it.
@discardableResult
func expectObtainError<T>(sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () throws -> T) -> ServiceObtainError? {
    #expect(throws: ServiceObtainError.self, sourceLocation: sourceLocation) { _ = try body() }
}

/// Expects `body` to throw a ``ServiceObtainError`` caused by a cycle; returns both.
func expectCycle<T>(sourceLocation: SourceLocation = #_sourceLocation,
                    _ body: () throws -> T) throws -> (ServiceObtainError, Cycle) {
    let obtained = expectObtainError(sourceLocation: sourceLocation, body)
    let error = try #require(obtained, sourceLocation: sourceLocation)
    let cycle = try #require(Cycle(error.error), "\(error)", sourceLocation: sourceLocation)
    return (error, cycle)
}

extension ServiceObtainError {
    /// The store keys along ``pathServices``.
    var pathKeys: [String?] { pathServices.map(\.key) }
}

/// What ``ServiceLocatorError/cycle(path:acrossThreads:)`` says, for tests to read.
struct Cycle {
    let cycle: [ServiceIdentity]
    let acrossThreads: Bool

    /// The cycle `error` is, if it is one.
    init?(_ error: any Error) {
        guard case let .cycle(path, acrossThreads)? = error as? ServiceLocatorError else { return nil }
        cycle = path
        self.acrossThreads = acrossThreads
    }

    /// The store keys around the cycle.
    var keys: [String?] { cycle.map(\.key) }
}

/// True if `identity` names a service of `type` under `key`.
func names(_ identity: ServiceIdentity, key: String? = nil, type: Any.Type) -> Bool {
    identity.key == key && identity.typeName == String(reflecting: type)
}

/// A module made of a closure, named as the test likes.
struct ClosureModule: Module {
    var name: String
    let body: (ModuleRegistrar) throws -> Void

    init(name: String, _ body: @escaping (ModuleRegistrar) throws -> Void) {
        self.name = name
        self.body = body
    }

    func registerServices(in registrar: ModuleRegistrar) throws {
        try body(registrar)
    }
}
