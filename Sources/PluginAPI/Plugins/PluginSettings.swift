/// A plugin's own settings, filled by the host from its operator's configuration and scoped to the
/// plugin's name: a key is looked up in this plugin's settings only, and no key reaches another
/// plugin's. What a plugin is lent hands them out (``ServiceResolver/settings``).
///
/// ```swift
/// func registerServices(in registrar: ModuleRegistrar) throws {
///     let settings = registrar.services.settings
///     let greeting = try settings.string(forKey: "greeting", default: "Hello")
///     let timeout = try settings.int(forKey: "timeoutSeconds", default: 5)
///     let token = try settings.secret(forKey: "apiToken")   // prints as <secret>
///     try registrar.addLazyService(key: Keys.greeter) { Greeter(greeting: greeting, timeout: timeout, token: token) }
/// }
/// ```
///
/// **One value per key for the plugin's life.** The first read of a key asks the host; later reads
/// return that answer, so a plugin never sees half of an edit. When the operator changes a value
/// this plugin read, the host's next reload starts the plugin again from its file as an upgrade
/// does, with the new values (and the plugins that require it, as for an upgrade).
///
/// Reads throw ``PluginSettingsError`` when a value is set but is not of the type read (`port` set to
/// `80a`, read as an `Int`), or the host cannot read it; an unset key is `nil`, or the default.
/// The settings of a resolver no host lent (a ``ServiceLocator`` of your own) are all unset.
public struct PluginSettings: Sendable {
    /// The plugin whose settings these are, and where its values come from (nil: none is set).
    private let plugin: String
    private let source: (any PluginSettingsSource)?
    /// Each key read so far and its answer: what later reads return, and what the host compares.
    private let answers: SettingAnswers

    /// The settings of `plugin`, whose values `source` gives: what a host lends a plugin.
    @_spi(HostKit) public init(plugin: String, source: any PluginSettingsSource) {
        self.plugin = plugin
        self.source = source
        answers = SettingAnswers()
    }

    /// Settings with nothing set.
    init() {
        plugin = ""
        source = nil
        answers = SettingAnswers()
    }

    /// The value of `key` as text, or `nil` if it is unset.
    public func string(forKey key: String) throws -> String? {
        try raw(key)
    }

    /// The value of `key` as text, or `default` if it is unset.
    public func string(forKey key: String, default: String) throws -> String {
        try raw(key) ?? `default`
    }

    /// The value of `key` as a whole number (`8080`, `-1`), or `nil` if it is unset.
    public func int(forKey key: String) throws -> Int? {
        try typed(key, "a whole number", Int.init)
    }

    /// The value of `key` as a whole number, or `default` if it is unset.
    public func int(forKey key: String, default: Int) throws -> Int {
        try typed(key, "a whole number", Int.init) ?? `default`
    }

    /// The value of `key` as a number (`0.25`, `1e3`), or `nil` if it is unset.
    public func double(forKey key: String) throws -> Double? {
        try typed(key, "a number", Double.init)
    }

    /// The value of `key` as a number, or `default` if it is unset.
    public func double(forKey key: String, default: Double) throws -> Double {
        try typed(key, "a number", Double.init) ?? `default`
    }

    /// The value of `key` as `true` or `false` (also `yes`/`no`, `1`/`0`, any case), or `nil` if it is unset.
    public func bool(forKey key: String) throws -> Bool? {
        try typed(key, "true or false", Self.bool)
    }

    /// The value of `key` as `true` or `false`, or `default` if it is unset.
    public func bool(forKey key: String, default: Bool) throws -> Bool {
        try typed(key, "true or false", Self.bool) ?? `default`
    }

    /// The value of `key` as a secret, which never prints (a password, a token), or `nil` if it is unset.
    public func secret(forKey key: String) throws -> PluginSecret? {
        try raw(key).map(PluginSecret.init)
    }

    /// The keys this plugin read whose value the source gives differently now (or cannot give now, or
    /// could not give then and can now), sorted: what makes a host start the plugin again at a reload.
    /// A key that could not be given then and still cannot is unchanged: starting the plugin again
    /// would get it the same failure, at every reload.
    @_spi(HostKit) public var changedKeys: [String] {
        guard let source else { return [] }
        return answers.read.filter { key, answer in
            // nil: the source cannot give the key now (a `try?` would flatten that into "unset").
            let now: String??
            do {
                now = .some(try source.value(forKey: key, of: plugin))
            } catch {
                now = nil
            }
            switch answer {
            case let .value(old): return now != .some(old)
            case .failed: return now != nil
            }
        }.keys.sorted()
    }

    /// The value of `key` as the source gave it at the first read, asked now if this is the first.
    private func raw(_ key: String) throws -> String? {
        guard let source else { return nil }
        let answer = answers.answer(for: key) {
            do {
                return .value(try source.value(forKey: key, of: plugin))
            } catch {
                return .failed(String(describing: error))
            }
        }
        switch answer {
        case let .value(value): return value
        case let .failed(reason): throw PluginSettingsError(plugin: plugin, key: key, reason: reason)
        }
    }

    /// The value of `key` made `type` by `parse`; a value it cannot parse is an error, not unset.
    private func typed<Value>(_ key: String, _ type: String, _ parse: (String) -> Value?) throws -> Value? {
        guard let text = try raw(key) else { return nil }
        guard let value = parse(text) else {
            // The value is not shown: the key may hold a secret that the operator meant as another.
            throw PluginSettingsError(plugin: plugin, key: key, reason: "its value is not \(type)")
        }
        return value
    }

    private static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "1": true
        case "false", "no", "0": false
        default: nil
        }
    }
}

// Reflection shows nothing of the settings: `Mirror` reads private stored properties, and a plugin that
// reflected its settings would reach the host's source, which holds every plugin's values (and its own
// answers, secrets among them, would be dumped into a log by `dump`).
extension PluginSettings: CustomReflectable {
    /// An empty mirror.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
