/// A library whose entry symbol exists but returns nothing.
@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer? { nil }
