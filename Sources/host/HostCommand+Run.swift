import HostKit
@_spi(HostKit) import PluginAPI

/// `host run`: loads and starts the plugins, and gets every service it can.
extension HostCommand {
    /// `run`: what loaded, the slots, the plugins started, and each service gotten; false if a get failed.
    func run(_ host: PluginHost, _ report: LoadReport) async -> Bool {
        let (services, succeeded) = await getEachService(host.locator)
        if arguments.json {
            Output.json(encodeJSON(RunJSON(plugins: report.jsonPlugins, slots: slots(host.locator, report),
                                           started: host.startedPlugins, services: services)))
        } else {
            Output.lines((report.loaded + report.libraries).map(\.summary) + [""] + slotTable(host.locator, report))
            Output.lines(["", "started:    \(host.startedPlugins.joined(separator: ", "))", ""])
            Output.lines(Output.table(["KEY", "SERVICE"], services.map { [$0.key, $0.service ?? $0.notGotten ?? ""] }))
        }
        return succeeded
    }

    /// Gets the service of every slot that needs neither `await` nor parameters, knowing nothing of
    /// its type; the others are listed as not gotten, with why. Also returns false if a get failed
    /// (the reason goes to stderr).
    private func getEachService(_ locator: ServiceLocator) async -> (services: [Gotten], succeeded: Bool) {
        var succeeded = true
        var rows: [Gotten] = []
        for slot in locator.slots {
            if slot.isAsync {
                rows.append(Gotten(key: slot.key, service: nil, notGotten: "not gotten: async"))
            } else if let params = slot.paramsType {
                rows.append(Gotten(key: slot.key, service: nil, notGotten: "not gotten: needs (\(params))"))
            } else {
                do {
                    let service = String(describing: try await locator.anyService(storeKey: slot.key))
                    rows.append(Gotten(key: slot.key, service: service, notGotten: nil))
                } catch {
                    Output.problem("\(error)")
                    succeeded = false
                    rows.append(Gotten(key: slot.key, service: nil, notGotten: "failed"))
                }
            }
        }
        return (rows, succeeded)
    }

    /// One slot's service as `run` got it: its description, or why it was not gotten (null otherwise).
    private struct Gotten: JSONRecord {
        let key: String
        let service: String?
        let notGotten: String?
        var fields: [(name: String, value: (any Encodable)?)] {
            [("key", key), ("service", service), ("notGotten", notGotten)]
        }
    }

    /// What `run --json` prints: the load's files (as `check --json`), the slots (as `list --json`),
    /// the plugins started in start order, and each service `run` got.
    private struct RunJSON: Encodable {
        let plugins: [LoadReport.JSONPlugin]
        let slots: [Slot]
        let started: [String]
        let services: [Gotten]
    }
}
