import Dispatch
import Distributed
internal import DynamicLoading
import Foundation
@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors

/// The process a host starts for one plugin placed in a process of its own (``PluginProcesses``):
/// it opens, checks and registers that plugin through the same steps as the host's load
/// (`LoadPipeline`), runs its hooks, and serves its services to the host over the socket the host
/// gave it (descriptor 3). What the plugin requires is served by the host over the same socket.
///
/// The child program calls ``serve(discovery:)`` (the `host` command does so for `host __serve-plugin`)
/// with the same trust options as the host, and exits with what it returns.
public enum PluginChild {
    /// Serves the host on descriptor 3 until the host closes the connection (then ends the process at
    /// once, status 0), or returns 2 if there is no such connection, 4 if it could not enter the
    /// sandbox the host asked for. Call it before the process starts a thread: the sandbox binds the
    /// thread that enters it. Nothing of a plugin runs before the process is in its sandbox and
    /// connected: its load request is in its environment, and it loads its plugin then, before the
    /// host's load call is read.
    public static func serve(discovery: PluginDiscovery = PluginDiscovery()) -> Int32 {
        // A zygote returns from this in each child it forks, which goes on as one spawned.
        let forked = Posix.environment(ZygoteServer.variable) != nil
        if forked {
            // Not a variable a child started from here (by a plugin's run grant, say) may inherit.
            Posix.removeEnvironment(ZygoteServer.variable)
            ZygoteServer.serve(warmUp: ChildWarmUp.run)
        }
        // Run by hand, the number may be free, or another library's by now: never read nor close that.
        guard Posix.isUnixStreamSocket(ChildProcess.socketDescriptor) else {
            FileHandle.standardError.write(Data(("no connection to the host on descriptor \(ChildProcess.socketDescriptor): it is not"
                                                 + " a Unix stream socket (a host starts this program, see PluginProcesses)\n").utf8))
            return 2
        }
        let environment = ProcessInfo.processInfo.environment
        let milliseconds = environment[ChildControlService.callTimeoutVariable].flatMap(Int64.init) ?? 30_000
        Posix.removeEnvironment(ChildControlService.callTimeoutVariable)
        let preload = environment[ChildLoadRequest.preloadVariable].flatMap(ChildLoadRequest.init(variableValue:))
        Posix.removeEnvironment(ChildLoadRequest.preloadVariable)
        var discovery = discovery
        let sandbox: [SandboxLayer]?
        switch ChildSandbox.enter(environment[SandboxPolicy.variable], discovery: &discovery) {
        case let .success(layers): sandbox = layers
        case let .failure(problem):
            FileHandle.standardError.write(Data("\(problem)\n".utf8))
            return sandboxRefusedStatus
        }
        // Forked, the zygote's thread is not one to serve on (``FreshThread``): one made now, in
        // the sandbox, is.
        if forked {
            FreshThread.run { serveConnected(discovery: discovery, sandbox: sandbox, preload: preload, callTimeout: milliseconds) }
        }
        return serveConnected(discovery: discovery, sandbox: sandbox, preload: preload, callTimeout: milliseconds)
    }

    /// Serves the host on descriptor 3, the sandbox entered, until the host closes the connection
    /// (then ends the process); 2 if it cannot connect.
    private static func serveConnected(discovery: PluginDiscovery, sandbox: [SandboxLayer]?, preload: ChildLoadRequest?,
                                       callTimeout milliseconds: Int64) -> Int32 {
        let services = ChildServices()
        // The plugin is loaded as soon as the process is connected: a standby's before the host takes
        // it (the step a takeover then skips), another's while the host's load request is read (the
        // first call a process serves is slow: its runtime's first look-ups; 1 ms of a start,
        // measured). Not before: a plugin's constructors find no host socket at descriptor 3 (a
        // process they start inherits none), and cannot use up the limits the connection needs. Not
        // with an operator's file check (a digest list), which a load reads as it begins: the list in
        // force when the standby takes over decides, as it does for a process started then.
        let ahead = discovery.fileCheck == nil ? preload : nil
        let steps = ChildPluginSteps(discovery: discovery, services: services, sandbox: sandbox, ahead: ahead)
        let control = ChildControlService(actorSystem: .shared, steps: steps)
        let hostGone = DispatchSemaphore(value: 0)
        do {
            _ = try PluginActorSystem.shared.connect(
                peer: ChildServices.hostPeer, socket: ChildProcess.socketDescriptor,
                callTimeout: .milliseconds(milliseconds),
                serve: { name in
                    if name == ChildControlService.name { return (control, ChildControlService.self) }
                    return try await services.service(named: name)
                },
                endReason: {
                    hostGone.signal()
                    return "the host closed the connection"
                })
        } catch {
            FileHandle.standardError.write(Data("no connection to the host on descriptor \(ChildProcess.socketDescriptor): \(error)\n".utf8))
            return 2
        }
        // The connection holds its own duplicate: the plugin finds no socket at the number it was given.
        close(ChildProcess.socketDescriptor)
        if ahead != nil { Task { await steps.preload() } }
        hostGone.wait()
        // At once, not through `exit`: a plugin's exit handler that never returns must not keep its
        // process past its host.
        _exit(0)
    }

    /// The status of a child that could not enter its sandbox (it wrote why on its standard error).
    static let sandboxRefusedStatus: Int32 = 4
}
