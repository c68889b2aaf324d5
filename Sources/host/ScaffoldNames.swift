/// The names `host new` derives from NAME, by one rule for every file it writes: the package, its
/// folder, its target and its library are NAME with the kind's suffix (`Forecast`: `ForecastPlugin`,
/// `Weather`: `WeatherContracts`), or NAME itself if it ends in the suffix already.
struct ScaffoldNames {
    /// The package, its default folder, its one target and its one library product:
    /// `lib\(library).so` is what the build writes.
    let library: String
    /// `library` without its suffix: what the types, keys and the plugin's metadata name are made of.
    let base: String

    init(_ name: String, kind: NewArguments.Kind) {
        // NAME the suffix alone ("Plugin") still gets it: the package would otherwise be named as its
        // kind, and the type in it after the protocol it conforms to.
        if name.hasSuffix(kind.suffix) && name != kind.suffix {
            library = name
            base = String(name.dropLast(kind.suffix.count))
        } else {
            library = name + kind.suffix
            base = name
        }
    }

    /// The plugin's metadata name and the start of its keys: `forecast`.
    var lowercased: String { base.lowercased() }

    /// The contract library's `LibraryVersion` property: `weatherContracts`.
    var versionProperty: String { library.prefix(1).lowercased() + library.dropFirst() }

    /// The contract library's protocol: `WeatherService`.
    var serviceProtocol: String { base + "Service" }

    /// The contract library's keys: `WeatherKeys`.
    var keys: String { base + "Keys" }

    /// The key of the contract library's service: `weather.service`.
    var serviceKey: String { lowercased + ".service" }

    /// The key of a plugin's own service, without a contract library: `forecast.greeting`.
    var greetingKey: String { lowercased + ".greeting" }
}
