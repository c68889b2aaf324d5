import Dispatch
import Distributed
import Glibc
@_spi(HostKit) @testable import PluginActors

/// What the tests call across two systems standing for two processes.
@Resolvable
protocol Calculator: DistributedActor where ActorSystem: DistributedActorSystem<any Codable> {
    distributed func add(_ pair: Pair) -> Pair
    distributed func fail(_ text: String) throws
    distributed func hang() async throws
    distributed func hangsCancelled() -> Int
    distributed func nothing()
    distributed func addOnAChildTaskItsThreadWaitsFor(_ pair: Pair) async -> Pair
    /// The headers the call came with (``PluginCallContext``).
    distributed func headers() -> [String: String]
}

struct Pair: Codable, Sendable, Equatable {
    var left: Int
    var right: Int
    var label: String
}

struct CalculatorFailure: Error, CustomStringConvertible {
    let text: String
    var description: String { "failure: \(text)" }
}

distributed actor LocalCalculator: Calculator {
    typealias ActorSystem = PluginActorSystem
    /// How many `hang` calls started, and how many saw their task cancelled.
    private var startedHangs = 0
    private var cancelledHangs = 0

    distributed func add(_ pair: Pair) -> Pair {
        Pair(left: pair.left + pair.right, right: 0, label: pair.label + "!")
    }

    distributed func fail(_ text: String) throws {
        throw CalculatorFailure(text: text)
    }

    distributed func hang() async throws {
        startedHangs += 1
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            cancelledHangs += 1
            throw error
        }
    }

    distributed func hangsStarted() -> Int { startedHangs }

    distributed func hangsCancelled() -> Int { cancelledHangs }

    distributed func nothing() {}

    distributed func headers() -> [String: String] { PluginCallContext.headers }

    /// Blocks its thread (a serving thread) until a child task it started has run: the child is
    /// queued by that very thread, so another must run it.
    distributed func addOnAChildTaskItsThreadWaitsFor(_ pair: Pair) async -> Pair {
        let childRan = DispatchSemaphore(value: 0)
        async let sum = { childRan.signal(); return pair.left + pair.right }()
        childRan.wait()
        return Pair(left: await sum, right: 0, label: pair.label + "!")
    }
}

/// Two systems joined by a socket pair: `host` calls, `child` serves `calculator` under the name "calc".
final class TwoSystems: Sendable {
    let host = PluginActorSystem()
    let child = PluginActorSystem()
    let calculator: LocalCalculator
    let hostSocket: Int32
    let childSocket: Int32
    let hostConnection: PluginActorConnection
    let childConnection: PluginActorConnection

    /// `callsWaitForSuccessor`: the host's connection's (calls made after the child ended wait for the next).
    init(callTimeout: Duration = .seconds(300), callsWaitForSuccessor: Set<String>? = nil) throws {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw PluginActorError.unsupported("socketpair failed")
        }
        hostSocket = pair[0]
        childSocket = pair[1]
        let calculator = LocalCalculator(actorSystem: child)
        self.calculator = calculator
        hostConnection = try host.connect(peer: "child", socket: hostSocket, callTimeout: callTimeout,
                                          serve: { name in throw PluginActorError.unsupported("the host serves nothing (\(name))") },
                                          endReason: { "the child's test end" }, callEnded: nil,
                                          callsWaitForSuccessor: callsWaitForSuccessor)
        childConnection = try child.connect(peer: "host", socket: childSocket, callTimeout: callTimeout, serve: { name in
            guard name == "calc" else { throw PluginActorError.unsupported("no \(name)") }
            return (calculator, $Calculator<PluginActorSystem>.self)
        })
    }

    /// The host's proxy of the child's calculator.
    func proxy(named name: String = "calc") throws -> any Calculator {
        try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "child", name: name), using: host)
    }

    deinit {
        hostConnection.close(.unavailable(peer: "child", reason: "test over"))
        childConnection.close(.unavailable(peer: "host", reason: "test over"))
        close(hostSocket)
        close(childSocket)
    }
}

/// What descriptor `number` of this process is (`socket:[123]`), if it is open.
func descriptorTarget(_ number: Int32) -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    let count = readlink("/proc/self/fd/\(number)", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// What every open descriptor of this process is.
func openDescriptorTargets() -> Set<String> {
    guard let folder = opendir("/proc/self/fd") else { return [] }
    defer { closedir(folder) }
    var targets: Set<String> = []
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if let number = Int32(name), let target = descriptorTarget(number) { targets.insert(target) }
    }
    return targets
}
