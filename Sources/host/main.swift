import Glibc
import HostKit
import PluginAPI

// A closed standard output (a pipe whose reader went away) must not end the host with SIGPIPE before
// its plugins are shut down: a write fails with EPIPE instead, and the host carries on.
signal(SIGPIPE, SIG_IGN)

let arguments: Arguments
do throws(Arguments.UsageError) {
    if let argument = RawArguments.firstNotUTF8() {
        throw Arguments.UsageError(description: "the argument '\(argument)' is not valid UTF-8; host takes UTF-8"
                                   + " paths only: rename the file")
    }
    arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
} catch {
    // What is wrong and where to read more, not the whole usage: the error would scroll away.
    Output.problem(error.description)
    Output.problem(error.hint)
    exit(2)
}
if arguments.help {
    Output.lines((arguments.helpCommand.map(Usage.of) ?? Usage.general).components(separatedBy: "\n"))
    exit(0)
}
if arguments.version {
    Output.line("host \(HostCommand.version) (PluginAPI \(LibraryVersion.pluginAPI))")
    exit(0)
}
// A plugin's process confines itself before it starts any thread (its sandbox binds the thread that
// enters it): here, before the first `await` hands the rest to Swift concurrency's threads.
if arguments.command == .servePlugin {
    exit(PluginChild.serve(discovery: arguments.discovery))
}
exit(await HostCommand(arguments: arguments).run())
