import Foundation
import HostKit

/// What `swift build` / `swift test` put beside the test bundle (the sample plugins and the
/// executables), and where the fixture plugins were built.
public enum BuiltPlugins {
    /// The build folder: the test bundle runs from `.build/<triple>/<config>/`.
    public static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()

    /// The folder of the fixture plugins (the package Tests/PluginFixtures), which the build tool
    /// plugin BuildFixtures builds apart from this package.
    public static let fixtures = builtFixturesFolder

    /// The library of the product `product`: a fixture's (named "Fixture...") from ``fixtures``, any
    /// other from ``directory``.
    public static func path(_ product: String) -> String {
        "\(product.hasPrefix("Fixture") ? fixtures : directory)/lib\(product).so"
    }

    /// The real path of the library of the product `product`: what the loader and the reports name.
    public static func realPath(_ product: String) -> String {
        URL(fileURLWithPath: path(product)).resolvingSymlinksInPath().path
    }

    /// Every sample plugin, found as the `host` finds them by default (the list is in Package.swift).
    public static let samples = PluginSource.besideExecutable()
}
