import Glibc
import PluginAPI

let arguments: Arguments
do {
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
