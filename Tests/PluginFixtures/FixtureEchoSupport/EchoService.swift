import Distributed
import FixtureRemoteContracts
import Glibc
import PluginActors
import PluginAPI

/// The echo service of the echo fixtures (FixtureEchoPlugin, FixtureEchoPluginTwo), a distributed
/// actor of PluginActors' system. It does what it is asked, which includes crashing, exiting and
/// hanging the process that serves it.
public distributed actor EchoService: Echo {
    public typealias ActorSystem = PluginActorSystem

    /// Added to the tags of each message echoed, if set (the plugin's `tag` setting).
    private let tag: String?
    /// The plugin's own log: each message echoed is a `debug` line.
    private let log: PluginLog?

    public init(tag: String? = nil, log: PluginLog? = nil) {
        actorSystem = .shared
        self.tag = tag
        self.log = log
    }

    /// `message`, unchanged; with ``tag`` added to its tags if there is one.
    public distributed func echo(_ message: EchoMessage) -> EchoMessage {
        log?.debug("echoed", metadata: ["text": message.text])
        guard let tag else { return message }
        var tagged = message
        tagged.tags.append(tag)
        return tagged
    }

    public distributed func ping() {}

    public distributed func fail(_ text: String) throws {
        throw EchoFailure(text: text)
    }

    public distributed func crash() {
        fatalError("fixture-echo crashes as asked")
    }

    public distributed func exit(_ status: Int32) {
        Glibc.exit(status)
    }

    public distributed func hang() {
        // Blocks its thread: cancellation cannot reach a call that never suspends.
        while true { sleep(3600) }
    }

    public distributed func allocate(megabytes: Int) {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let count = max(0, megabytes) << 20
        guard let memory = malloc(count) else { fatalError("fixture-echo could not take \(megabytes) MiB") }
        // Touched page by page, so that the memory is resident, not only reserved.
        for offset in stride(from: 0, to: count, by: pageSize) {
            memory.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
        }
        // Never freed: the memory stays taken until the process ends.
    }

    public distributed func spin(seconds: Int) {
        var start = timespec(), now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        repeat {
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        } while now.tv_sec - start.tv_sec < seconds
    }

    public distributed func pid() -> Int32 { getpid() }
}
