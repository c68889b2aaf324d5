import HostKit

/// `host check`: whether the plugins load, and what loaded.
extension HostCommand {
    /// `check`: the load's problems went to stderr (``run()``); stdout gets what loaded and a count,
    /// or with `--json` the load's report.
    func check(_ report: LoadReport) {
        if arguments.json {
            Output.json(report.json)
        } else if !Self.foundNothing(report) {
            Output.lines((report.loaded + report.libraries).map(\.summary)
                + ["\(report.loaded.count) loaded, \(report.problems.count) problem(s)"])
        }
    }
}
