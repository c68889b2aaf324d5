/// The full name of a type, as `String(reflecting:)` writes it for a metatype.
///
/// Written directly (`_typeName(_:qualified:)`, which `String(reflecting:)` ends in for a metatype):
/// `String(reflecting:)` first asks whether the metatype conforms to the printing protocols, and each
/// first such question in a process scans every loaded image's conformance records (about 0.5 ms in a
/// fresh process that maps Foundation; 1 us a call after, against 0.15 us here). A plugin's own
/// process names its keys' types as it starts, where those scans were a measurable part of its start-up.
enum TypeName {
    /// `type`'s full name (`Module.Outer<Swift.Int>.Inner`).
    static func of(_ type: Any.Type) -> String {
        _typeName(type, qualified: true)
    }
}
