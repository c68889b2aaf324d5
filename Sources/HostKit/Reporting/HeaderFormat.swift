/// The number of the one plugin header layout this host reads: ``PluginHeader``'s `Layout.format`, and
/// the number the refusal of another format tells. Here, below both, so that there is one.
enum HeaderFormat {
    /// Format 4 (PluginAPI before 4.0 wrote its ABI version where the format is: 2 or 3).
    static let read: UInt32 = 4
}
