import HostKit
import PluginAPI

/// `host list`: the slots the plugins added (`run` shows them too), and what each plugin may get.
extension HostCommand {
    /// `list`: the slots, with the process each one's service lives in, and each plugin's grants.
    func list(_ host: PluginHost, _ report: LoadReport) {
        // Found nothing: the problem said so, and an empty table under it would say no more.
        if arguments.json {
            Output.json(encodeJSON(ListJSON(slots: slots(host.locator, report), plugins: report.jsonPlugins)))
        } else if !Self.foundNothing(report) {
            Output.lines(slotTable(host.locator, report) + [""] + grantTable(report))
        }
    }

    /// The slots, with the process each one's service lives in: `host`, or the process of a plugin
    /// in one of its own.
    func slotTable(_ locator: ServiceLocator, _ report: LoadReport) -> [String] {
        let servers = Self.servers(report)
        return Output.table(["KEY", "TYPE", "MODE", "PLUGIN", "PROCESS"], locator.slots.map { slot in
            [slot.key, slot.paramsType.map { "(\($0)) -> \(slot.serviceType)" } ?? slot.serviceType,
             (slot.isAsync ? "async " : "") + slot.mode.rawValue, slot.origin ?? "-",
             slot.origin.flatMap { servers[$0] } ?? "host"]
        })
    }

    /// Each loaded plugin and the keys what it is lent may get: those it requires and its own.
    private func grantTable(_ report: LoadReport) -> [String] {
        Output.table(["PLUGIN", "MAY GET"], report.loaded.compactMap(\.metadata).map { metadata in
            [metadata.name, metadata.grantedStoreKeys.joined(separator: ", ")]
        })
    }

    /// The slots as `list --json` and `run --json` print them.
    func slots(_ locator: ServiceLocator, _ report: LoadReport) -> [Slot] {
        let servers = Self.servers(report)
        return locator.slots.map { slot in
            Slot(key: slot.key, type: slot.serviceType, params: slot.paramsType, mode: slot.mode.rawValue,
                 async: slot.isAsync, plugin: slot.origin, servedBy: slot.origin.flatMap { servers[$0] })
        }
    }

    /// The process serving each plugin of `report` placed in a process of its own, by plugin name.
    private static func servers(_ report: LoadReport) -> [String: String] {
        let pairs = report.loaded.compactMap { entry in
            entry.metadata.flatMap { metadata in entry.servedBy.map { (metadata.name, $0) } }
        }
        return Dictionary(pairs) { first, _ in first }
    }

    /// A slot in `list --json`: absent fields are null, a flag is a JSON boolean.
    struct Slot: JSONRecord {
        let key: String
        let type: String
        let params: String?
        let mode: String
        let async: Bool
        let plugin: String?
        /// The process of a plugin in one of its own; null for a service in the host's.
        let servedBy: String?
        var fields: [(name: String, value: (any Encodable)?)] {
            [("key", key), ("type", type), ("params", params), ("mode", mode), ("async", async), ("plugin", plugin),
             ("servedBy", servedBy)]
        }
    }

    /// What `list --json` prints: the slots, and each plugin with its grants.
    private struct ListJSON: Encodable {
        let slots: [Slot]
        let plugins: [LoadReport.JSONPlugin]
    }
}
