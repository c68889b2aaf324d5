import Glibc
import FixtureHeaderForge
import PluginAPI

/// A plugin whose header has the right magic and format but points the host at what is not there.
/// `HOSTKIT_FIXTURE_FORGE` says which pointer lies, and at what:
/// - `descriptor-header`: the descriptor is the header itself (readable, not an object);
/// - `descriptor-object`: an object of another class;
/// - `descriptor-unmapped`: an address nothing is mapped at;
/// - `descriptor-misaligned`: four bytes into a real descriptor;
/// - `records-unmapped`: the library records;
/// - `header-unmapped`: the entry returns an address nothing is mapped at.
/// Without it (or with another value) the header is honest.
struct ForgedHeaderPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-forged-header", version: "1.0.0", provides: [])
    func registerServices(in registrar: ModuleRegistrar) throws {}
}

/// Not a `PluginDescriptor`.
final class Impostor: Sendable {
    let metadata = "I am a descriptor"
}

/// An address in the first page of the address space, which Linux never maps.
private var unmapped: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 0x100) }

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer? {
    let header = forgedHeader(of: ForgedHeaderPlugin.self)
    let forge = getenv("HOSTKIT_FIXTURE_FORGE").map { String(cString: $0) } ?? ""
    switch forge {
    case "descriptor-header":
        header.storeBytes(of: header, toByteOffset: 16, as: UnsafeMutableRawPointer.self)
    case "descriptor-object":
        header.storeBytes(of: Unmanaged.passRetained(Impostor()).toOpaque(), toByteOffset: 16, as: UnsafeMutableRawPointer.self)
    case "descriptor-unmapped":
        header.storeBytes(of: unmapped, toByteOffset: 16, as: UnsafeMutableRawPointer?.self)
    case "descriptor-misaligned":
        let real = header.load(fromByteOffset: 16, as: UnsafeMutableRawPointer.self)
        header.storeBytes(of: real + 4, toByteOffset: 16, as: UnsafeMutableRawPointer.self)
    case "records-unmapped":
        header.storeBytes(of: unmapped, toByteOffset: 24, as: UnsafeMutableRawPointer?.self)
    case "header-unmapped":
        return unmapped.map(UnsafeRawPointer.init)
    default:
        break
    }
    return UnsafeRawPointer(header)
}
