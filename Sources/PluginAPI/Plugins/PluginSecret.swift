/// A setting that must never print: a password, a token. Its text is ``value``; printing, dumping,
/// interpolating or reflecting the secret shows `<secret>`, so a secret passed into a log line or an
/// error by mistake does not leak. Read one with ``PluginSettings/secret(forKey:)``.
public struct PluginSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself: hand it to what needs it (a client's credentials), never to a log.
    public let value: String

    /// A secret whose text is `value`.
    public init(_ value: String) {
        self.value = value
    }

    /// `<secret>`.
    public var description: String { "<secret>" }

    /// `<secret>`.
    public var debugDescription: String { "<secret>" }

    /// A mirror without children: `dump` and reflection show no ``value``.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
