/// The host's help: the general usage (`host help`, `host --help`) and each command's own
/// (`host help COMMAND`, `host COMMAND --help`).
enum Usage {
    /// `host help`: every command in a line or a few, and the options they share.
    static let general = """
        usage: host [run] [--plugins PATH]... [--json]   load and start plugins, list slots, get each plain service
               host list [--plugins PATH]... [--json] [--start]
                                                         load plugins, list every slot and what each
                                                         plugin may get (no start hook runs)
               host check [--plugins PATH]... [--json] [--start]
                                                         report every problem; exit 1 if any, or if no plugin
                                                         is found (no start hook runs)
               host inspect FILE [--json] [--isolated]   read one plugin's descriptor, register nothing
               host resolve KEY [--param VALUE] [--plugins PATH]... [--json]
                                                         load plugins and get the service for KEY (awaited
                                                         if async; VALUE: its String, integer, floating
                                                         point or Bool parameters)
               host serve [--plugins PATH]... [--strict] load and start plugins, run until SIGINT/SIGTERM;
                                                         each SIGHUP reloads them (new, changed and
                                                         removed plugin files)
               host new plugin NAME [--contracts PATH [--uses]] [--distributed] [--in FOLDER] [--host-package PATH]
               host new contracts NAME [--distributed] [--in FOLDER] [--host-package PATH]
                                                         write a plugin or a contract library package
                                                         that builds and loads as it is
               host help [COMMAND] | --help | --version

        \(loading)
        `list` and `check` load and register plugins but run no start or shutdown hook, unless
        --start is given. `run`, `resolve` and `serve` start the plugins and, before they exit, shut
        them down in reverse order.
        Exit status: 0 success, 1 problems (or no plugin found), 2 usage.
        `host help COMMAND` describes one command.
        """

    /// The options of every command that loads plugins.
    private static let loading = """
        PATH is a plugin file or a directory of *.so files; repeat --plugins for more. Without it, the
        host reads SWIFT_PLUGIN_PATH (colon-separated), else loads every lib*Plugin.so beside it (after
        `swift build`, the sample plugins). --also PATH loads PATH besides those: your plugin next
        to the samples is `host run --also path/to/libMine.so`.
        --allow-untrusted     also load files others than you or root could have changed
        --allow-other-compiler  also load plugins another Swift toolchain built (it may crash the host)
        --shadow-folder DIR   where each load makes its private folder for the copies of the files
                              it maps (default TMPDIR, else /tmp; not a file system mounted noexec)
        --digests FILE        map only files FILE lists with their SHA-256 digest, in sha256sum's
                              format (cd plugins && sha256sum *.so > SHA256SUMS): each plugin and
                              each library it brings; FILE is read again at each reload
        --isolated            open and register each plugin in a child process first (after the
                              plugins it requires); one that crashes, hangs or exits there is
                              reported and not loaded. Start and shutdown hooks run in the host only
        --probe-timeout SECS  how long a child may take (default 10)
        --own-process FILE    run the plugin FILE (a file name such as libEchoPlugin.so, a path, or *
                              for all) in a process of its own, which serves its distributed
                              services to the host; repeat for more. A crash, exit or hang of it is
                              told on stderr and it is restarted; a plugin whose contract is a plain
                              protocol is refused. Each such process:
        --memory-limit MB     may take this much memory (default: no limit)
        --cpu-limit SECS      may use this much CPU time, a whole number (default: no limit)
        --open-files N        may have this many descriptors open, 16 or more (default: no limit)
        --thread-limit N      may run this many threads at once, 16 or more; with the sandbox only
                              (default 512)
        --call-timeout SECS   answers each call within this, or the call fails (default 30)
        --heartbeat SECS      is asked this often whether it answers, and killed and restarted if it
                              does not within as long; 0: never asked (default 5)
        --restarts N          is restarted at most N times a minute, then withdrawn with the
                              plugins that require it, as a reload withdraws one (default 5)
        --standby on|off      on: has a second process started ahead, which takes over when it
                              ends, so a restart skips the program's start; one idle process more
                              per plugin (default off)
        --zygote on|off       on: is forked from one process of the program started with the host,
                              its libraries loaded (a few ms instead of a program's start), and
                              shows in ps under that one's command line; off: each is started on
                              its own (default on)
        --sandbox MODE        is confined before it loads its plugin (SECURITY.md): full, every
                              layer or the plugin is refused (default); available, the layers this
                              kernel offers; off, none (it then runs with the host's environment
                              and rights). It reads only its plugin's files, writes only in a
                              private folder, has no network, reaches no other process; what the
                              settings file grants under {"sandbox": {"NAME": {"read": [PATH...],
                              "write": [DIR...], "tcpPorts": [PORT...], "run": [PROGRAM...]}}}
                              it reaches too
        --config FILE         each plugin's own settings, from a JSON file: {"plugins": {"NAME":
                              {"key": value, ...}}} (a plugin reads those of its name only); FILE
                              is read again at each reload, which starts again a plugin whose
                              settings it read changed. {"placement": {"FILE": "own-process" or
                              "in-process"}} moves a plugin FILE (as --own-process names one) there
                              at a reload; with --config, the options of its process above need no
                              --own-process
        --log-level LEVEL     the lowest level of the plugins' own log lines printed on stderr
                              (trace, debug, info, notice, warning, error, critical; default info);
                              PLUGIN=LEVEL sets one plugin's, by its name; repeat for more
        --start-timeout SECS  how long each plugin's start hook may take (default 30)
        --shutdown-timeout SECS  how long each plugin's shutdown hook may take (default 5)
        A timeout is a number of seconds from 0.01 to 86400.
        """

    /// `host help COMMAND`: what the command does, its own options, then the shared ones.
    static func of(_ command: Arguments.Command) -> String {
        let (synopsis, text): (String, String) = switch command {
        // `__serve-plugin` has no help (help refuses hidden commands): run's, were it asked.
        case .run, .servePlugin: ("host [run] [--plugins PATH]... [--also PATH]... [--json]", """
            Loads and starts the plugins, lists what loaded and every slot, and gets each service that
            needs neither parameters nor await; then shuts the plugins down in reverse start order.
            --json   print the load report, the slots, the start order and each service as JSON
            Exit status: 0 success, 1 a problem (a plugin refused, a get or a shutdown that failed,
            no plugin found), 2 usage.
            """)
        case .list: ("host list [--plugins PATH]... [--also PATH]... [--json] [--start]", """
            Loads and registers the plugins and lists every slot: key, type, mode, plugin; then each
            plugin and the keys it may get (those it requires and its own: any other get fails). No
            plugin's start or shutdown hook runs: listing has no side effects.
            --json   print the slots, and the plugins with their grants, as JSON
            --start  start the plugins too (and shut them down before exiting), as `run` does
            Exit status: 0 success, 1 a problem (or no plugin found), 2 usage.
            """)
        case .check: ("host check [--plugins PATH]... [--also PATH]... [--json] [--start]", """
            Loads and registers the plugins and reports every problem, one line each on stderr; stdout
            gets what loaded and a count. No plugin's start or shutdown hook runs, unless --start.
            --json   print the load report, the slots, the start order and each service as JSON
            --start  start the plugins too (a start or shutdown that fails is a problem), then shut
                     them down
            Exit status: 0 every plugin loads, 1 a problem or no plugin found at all (an empty or
            missing folder), 2 usage.
            """)
        case .inspect, .probe: ("host inspect FILE [--json] [--isolated] [--allow-untrusted] [--allow-other-compiler]", """
            Reads one plugin file's descriptor (name, version, keys, the libraries it was built
            against) and says whether this host would load it; registers nothing, starts nothing.
            --json      print the descriptor as JSON
            --isolated  open the file in a child process first (--probe-timeout SECS bounds it)
            Exit status: 0 the host would load it, 1 it would not (or it is no plugin), 2 usage.
            """)
        case .resolve: ("host resolve KEY [--param VALUE] [--plugins PATH]... [--also PATH]... [--json]", """
            Loads and starts the plugins and gets the service for KEY, awaited if it is async, then
            shuts the plugins down.
            --param VALUE  the slot's parameters: a String, integer, floating point or Bool (once)
            --json         print the service (or the error) as a JSON object
            Exit status: 0 success, 1 no such service, a failed get or a load with problems, 2 usage.
            """)
        case .serve: ("host serve [--plugins PATH]... [--also PATH]... [--strict]", """
            Loads and starts the plugins and runs until SIGINT or SIGTERM, then shuts them down in
            reverse order; each SIGHUP reloads them (new, changed and removed plugin files).
            --strict  refuse to serve a load with problems: shut down what started and exit 1
            Exit status: how the stop went: 0 every plugin shut down, 1 a shutdown failed (or --strict
            refused the load), 2 usage.
            """)
        case .new: ("""
            host new plugin NAME [--contracts PATH [--uses]] [--distributed] [--in FOLDER] [--host-package PATH]
                   host new contracts NAME [--distributed] [--in FOLDER] [--host-package PATH]
            """, """
            Writes a package that builds and loads as it is into a new or empty folder (never over a
            file), and prints the commands to build it and load it.
            `new plugin`: one plugin, a dynamic library whose plugin provides a String under a key of
            its own (NAME.greeting, lowercased), or with --contracts the service of that library's
            protocol. `new contracts`: a contract library, a dynamic library built for library
            evolution with a protocol, its key, its LibraryVersion 1.0.0, and ci/check-abi (swift
            build, then swift package check-abi) to run before each release.
            NAME is a Swift identifier (ASCII letters, digits and _). The package, its folder, its
            target and its library are NAME followed by Plugin (or Contracts), unless NAME ends so
            already: `host new plugin Forecast` writes ForecastPlugin/, built as libForecastPlugin.so.
            That name must be no target's or product's of the host package or of a package it
            depends on (SwiftPM refuses a package graph with two): `new plugin Greeter` is refused,
            as the host package has a GreeterPlugin, and a free NAME is suggested.
            --contracts PATH     a package `host new contracts` wrote: the plugin depends on it and
                                 provides its service (a distributed actor, for a distributed one)
            --uses               with --contracts: the plugin uses that service instead (requires
                                 its key and calls it when it starts); for a distributed one it
                                 also depends on PluginActors, as a provider does
            --distributed        new contracts: the protocol is a distributed actor's (@Resolvable,
                                 every call async throws, Codable values), whose service a host
                                 serves in its process or from one of its own (--own-process);
                                 the package also depends on PluginActors. new plugin: asks for
                                 such a contracts package
            --in FOLDER          where to write the package (default: its name, in this folder)
            --host-package PATH  the SwiftPluginHost package to depend on (default: the one this
                                 host was built from). Manifests name it, and --contracts, relative
                                 to the new package when they share a folder below /
            Exit status: 0 written, 1 a write failed (or SwiftPM could not read the host package),
            2 usage (a bad NAME or one the host package has, a folder that is not empty, no
            SwiftPluginHost package at --host-package or above this host).
            """)
        }
        let options = [.inspect, .probe, .new].contains(command) ? "" : "\n\n" + loading
        return "usage: \(synopsis)\n\n\(text)\(options)"
    }
}
