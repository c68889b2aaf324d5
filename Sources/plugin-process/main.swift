import Glibc
import HostKit

// The program a host built on HostKit starts for each plugin it places in a process of its own
// (`PluginProcesses(executable:)`): it serves the host on descriptor 3 and ends when the host closes
// that connection. The trust options are the defaults; the `host` command serves as its own child
// instead (`host __serve-plugin`), with the options it was given.
exit(PluginChild.serve())
