/// A library whose entry symbol exists but returns nothing.
@_cdecl("swift_plugin_entry")
public func swiftPluginEntry() -> UnsafeRawPointer? { nil }
