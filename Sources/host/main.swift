import Glibc
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
    Output.problem(error.description)
    Output.standardError(Arguments.usage)
    exit(2)
}
if arguments.help {
    Output.lines(Arguments.usage.components(separatedBy: "\n"))
    exit(0)
}
if arguments.version {
    Output.line("host \(HostCommand.version) (PluginAPI \(LibraryVersion.pluginAPI))")
    exit(0)
}
exit(await HostCommand(arguments: arguments).run())
