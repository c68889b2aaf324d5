@_spi(HostKit) import PluginAPI

/// What the child's plugin declares, as types that cross a process: names, mangled type names.
struct ChildPluginDescription: Codable, Sendable {
    struct Key: Codable, Sendable {
        let storeKey: String
        /// The mangled name of the key's type, for a distributed key; nil for a plain key.
        let keyType: String?
        /// How the key reads in errors (`'greeter' (any Greeter)`).
        let text: String
    }

    /// A library the plugin was built against, as its header records it.
    struct Library: Codable, Sendable {
        let name: String
        /// ``LibraryVersion/encoded``.
        let version: UInt64
    }

    let name: String
    let version: String
    let provides: [Key]
    let requires: [Key]
    /// The libraries the plugin was built against, PluginAPI first.
    let libraries: [Library]
    /// The layers of the sandbox its process entered before it loaded the plugin (``SandboxLayer``'s
    /// names); nil if the host asked for none.
    var sandbox: [String]? = nil
    /// What the plugin declares it needs beyond the sandbox (`PluginMetadata.needs`).
    var needs = Needs()

    /// `PluginNeeds`, as it crosses a process.
    struct Needs: Codable, Sendable {
        var read: [String] = []
        var write: [String] = []
        var run: [String] = []
        var tcpPorts: [UInt16] = []

        var pluginNeeds: PluginNeeds { PluginNeeds(read: read, write: write, run: run, tcpPorts: tcpPorts) }
    }
}

extension ChildPluginDescription {
    /// What `plugin` declares, in names that cross a process.
    init(_ plugin: LoadedPlugin) {
        let key = { (declared: DeclaredKey) in
            Key(storeKey: declared.storeKey, keyType: declared.keyTypeName, text: declared.description)
        }
        self.init(name: plugin.metadata.name, version: plugin.metadata.version, provides: plugin.metadata.provides.map(key),
                  requires: plugin.metadata.requires.map(key),
                  libraries: plugin.libraries.map { Library(name: $0.name, version: $0.encoded) })
        let needs = plugin.metadata.needs
        self.needs = Needs(read: needs.read, write: needs.write, run: needs.run, tcpPorts: needs.tcpPorts)
    }
}
