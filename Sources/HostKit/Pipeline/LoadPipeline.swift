internal import DynamicLoading
@_spi(HostKit) import PluginAPI

/// One load, from plugin files to started services, staged beside the services published: what a
/// first load, each reload and an inspection run, and what a ``PluginProbe`` child runs the steps of
/// for its file. Its phases, in order:
///
/// 1. ``discover(_:)``: sources become candidate files: absolute real paths of regular files that
///    only this user or root can change, nor the folders and symlinks on the way (``PathTrust``);
///    each file is checked where it lies, copied into this load's ``ShadowFolder`` and read there,
///    once, for its ELF headers (``ELFCheck``), its toolchain (``CompilerIdentity``) and its entry
///    (``EntrySymbol``). (``PluginDiscovery``)
/// 2. ``open(_:beside:)`` (a reload: ``openChanges(_:served:)``): contract-library copies first
///    (``LibraryCopies``); each file probed in a child (with a probe), then the libraries its copy
///    would bring found and checked (``LibraryClosure``), the copy opened (``DynamicLibrary``), the
///    header its entry returns read (``PluginHeader``) and the library versions it records checked
///    (``LibraryCheck``); only then is its descriptor read. Once per file and process. (``PluginLoader``)
/// 3. ``stage(_:onto:after:registeredInProbe:as:)``: on a clone of the published locator, a first
///    load's plugins planned, providers first (``LoadPlan``; a reload's step comes planned by
///    ``ReloadPlan``); each module registered, all or nothing, its declared keys only, after its
///    probe in a child (``PluginRegistration``); then the start hooks, in dependency order
///    (``PluginStart``).
///
/// What a stage hands back (``Staged``) is not published: ``PluginHost`` swaps it in, or (a reload's
/// step that failed) stops what it started. ``finish()`` removes the load's copies once its files are open.
struct LoadPipeline {
    /// How files are found and which are trusted.
    let discovery: PluginDiscovery
    /// This load's folder of copies (``ShadowFolder``), or why it has none: then nothing loads.
    let shadow: Result<ShadowFolder, PluginLoadError>
    /// The operator's check of each file this load maps (``PluginDiscovery/fileCheck``), begun for
    /// this load; nil if there is none.
    let fileCheck: FileCheck?
    /// Loads each file, and registers each plugin not registered in its first probe, in a child
    /// first; or nil.
    let probe: PluginProbe?
    /// How start hooks run; nil: none runs (a look at what would load, or a probe child).
    let start: PluginStart?
    /// Which plugins run in a process of their own, and opens them there; nil: all run in this one.
    let ownProcess: (any OwnProcessPlacement)?
    /// Where the lines of each plugin's own log go (``PluginLogs``); nil: nowhere.
    let logs: (any PluginLogHandler)?
    /// Where each plugin's own settings come from (``PluginSettingsFile``, say); nil: none is set.
    let settings: (any PluginSettingsSource)?
    /// Why the settings could not be read again as this load began, if they could not.
    let settingsProblem: PluginLoadError?
    /// A pipeline for one load, with a new folder for its copies in `discovery`'s
    /// ``PluginDiscovery/shadowFolder``. Call ``finish()`` when the load has opened its plugins.
    init(discovery: PluginDiscovery, probe: PluginProbe? = nil, start: PluginStart? = nil,
         ownProcess: (any OwnProcessPlacement)? = nil, logs: (any PluginLogHandler)? = nil,
         settings: (any PluginSettingsSource)? = nil) {
        self.discovery = discovery
        self.probe = probe
        self.start = start
        self.ownProcess = ownProcess
        self.logs = logs
        self.settings = settings
        do {
            try settings?.loadBegins()
            settingsProblem = nil
        } catch {
            settingsProblem = .settingsUnreadable(reason: String(describing: error))
        }
        // Without an operator's file check, which may read any byte, a copy leaves out what nothing reads.
        shadow = ShadowFolder.make(in: discovery.shadowFolder, checkingParent: !discovery.shadowFolderCheckedByHost,
                                   copiesWhole: discovery.fileCheck != nil)
            .mapError(PluginLoadError.init)
        fileCheck = discovery.fileCheck.map { check in
            do {
                try check.loadBegins()
                return FileCheck.of(check, unusable: nil)
            } catch {
                return FileCheck.of(check, unusable: "the file check could not begin this load: \(error)")
            }
        }
    }

    /// Where this load's copies are, made now if it was not: a probe child makes its own folder
    /// inside, and copies into it. Nil if this load has no folder (then it loads nothing); an error
    /// if it cannot be made.
    var probeFolder: Result<String?, PluginLoadError> {
        guard let folder = try? shadow.get() else { return .success(nil) }
        do {
            try folder.create()
        } catch {
            return .failure(.shadowFolderUnusable(path: Paths.folder(of: folder.root),
                                                  reason: "a folder cannot be made in it: \(error.reason)"))
        }
        return .success(folder.root)
    }

    /// `candidate` checked in a probe child, if this load has a probe.
    func probed(_ candidate: PluginCandidate) -> Result<PluginProbe.Verdict, PluginLoadError>? {
        probe.map { probe in probeFolder.flatMap { probe.check(candidate, folder: $0) } }
    }

    /// What a probe child found wrong registering `plugin` after `providers`, if anything.
    func probedRegistration(of plugin: LoadedPlugin, after providers: [LoadedPlugin], by probe: PluginProbe) -> PluginLoadError? {
        switch probeFolder {
        case let .failure(failure): failure
        case let .success(folder): probe.checkRegistration(of: plugin, after: providers, folder: folder)
        }
    }

    /// Removes this load's copies (what was mapped stays mapped). The load's files are opened by now.
    func finish() {
        if case let .success(shadow) = shadow { shadow.remove() }
    }

    // MARK: Phase 1

    /// The candidate files of `sources`, each once, and what was wrong with the rest (and with the
    /// settings, if they could not be read again).
    func discover(_ sources: [PluginSource]) -> (candidates: [PluginCandidate], problems: [PluginLoadError]) {
        var found = switch shadow {
        case let .success(shadow): discovery.discover(sources, into: shadow, fileCheck: fileCheck)
        case let .failure(problem): (candidates: [PluginCandidate](), problems: [problem])
        }
        if let settingsProblem { found.problems.append(settingsProblem) }
        return found
    }

    /// The candidate file at `path`.
    func discover(file path: String) -> Result<PluginCandidate, PluginLoadError> {
        shadow.flatMap { discovery.candidate(path, into: $0, fileCheck: fileCheck) }
    }

    // MARK: Phase 2

    /// The files opened, and what became of the others.
    struct Opened {
        /// The plugins opened, in discovery order.
        var plugins: [LoadedPlugin] = []
        /// Each other file's outcome, by real path: why it was refused, or which plugins link it.
        var outcome: [String: LoadReport.Entry] = [:]
        /// The plugins a probe child registered already (they require nothing): no second probe.
        var registeredInProbe: Set<String> = []
    }

    /// Each of `candidates` probed (with a probe) and opened, in the order that maps the copy of each
    /// contract library chosen (``LibraryCopies``) before the others: the loader binds every later
    /// plugin to the copy it maps first. A candidate that is a library that the opened plugins, or
    /// the plugins `served` already, link is marked as one.
    func open(_ candidates: [PluginCandidate], beside served: [LoadedPlugin] = []) -> Opened {
        var opened = Opened()
        // A plugin of a process of its own is opened there, after the others: its contract's types
        // must be in this process, and a copy of its contract library the plugins opened here bring
        // is the one used (else its launch maps one, ``ContractLibraries``).
        // (A file that is no plugin, a library laid beside them, stays a library of this process.)
        let own = candidates.filter(placesOwnProcess)
        let here = candidates.filter { !placesOwnProcess($0) }
        for candidate in LibraryCopies.openingOrder(for: here) {
            switch probed(candidate) {
            case let .failure(failure):
                opened.outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: failure)
                continue
            case .success(.registered): opened.registeredInProbe.insert(candidate.realPath)
            case .success, nil: break
            }
            switch openUnprobed(candidate) {
            case let .success(plugin): opened.plugins.append(plugin)
            case let .failure(error):
                opened.outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: error)
            }
        }
        for candidate in own {
            switch launch(candidate) {
            case let .success(plugin):
                opened.plugins.append(plugin)
                // Its process is its isolation: no probe child opens it in this one.
                opened.registeredInProbe.insert(plugin.path)
            case let .failure(error):
                opened.outcome[candidate.realPath] = LoadReport.Entry(path: candidate.realPath, metadata: nil, error: error)
            }
        }
        let position = Dictionary(candidates.enumerated().map { ($1.realPath, $0) }) { first, _ in first }
        opened.plugins.sort { position[$0.path, default: .max] < position[$1.path, default: .max] }
        LibraryEntries.mark(of: served + opened.plugins, among: candidates, in: &opened.outcome)
        return opened
    }

    /// True if the plugin of `candidate` is to be opened in a process of its own: the host places it
    /// so, and it has an entry (a file that is no plugin stays a library of this process).
    private func placesOwnProcess(_ candidate: PluginCandidate) -> Bool {
        ownProcess?.placesOwnProcess(candidate) == true && candidate.entry.refusal(path: candidate.realPath) == nil
    }

    /// A process of its own for the plugin of `candidate`, which has it load the plugin; or why not.
    private func launch(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginLoadError> {
        guard let ownProcess else {
            return .failure(.processFailed(path: candidate.realPath, reason: "the host places no plugin in a process of its own"))
        }
        return ownProcess.launch(candidate, startTimeout: start?.timeout ?? .seconds(30), fileCheck: fileCheck)
    }

    /// `plugin` as a restart registers it again: one of this process as it is (its module is made
    /// anew from its image), one of a process of its own in a new process. Its process ran the start
    /// hook of the one instance it holds, and the services that instance was lent stay its own.
    func reopened(_ plugin: LoadedPlugin) -> Result<LoadedPlugin, PluginLoadError> {
        guard plugin.servedBy != nil else { return .success(plugin) }
        guard let candidate = plugin.candidate else {
            return .failure(.processFailed(path: plugin.path, reason: "the file it was loaded from is not known"))
        }
        return launch(candidate)
    }

    /// `plugin`, served from a file found unchanged, opened anew where the operator places it now
    /// (a settings file's `placement`): in a process of its own, launched as a load launches one; or
    /// in this one, its file found and checked again, probed and opened as at a load. Nil if it is
    /// where it belongs, or this host places no plugin in a process of its own. Whether a probe
    /// registered it (or its process did) comes with it.
    func moved(_ plugin: LoadedPlugin) -> Result<(plugin: LoadedPlugin, registeredInProbe: Bool), PluginLoadError>? {
        guard ownProcess != nil, let served = plugin.candidate else { return nil }
        let wantsOwn = placesOwnProcess(served)
        guard wantsOwn != (plugin.servedBy != nil) else { return nil }
        if wantsOwn { return launch(served).map { ($0, true) } }
        let candidate: PluginCandidate
        switch discover(file: plugin.path) {
        case let .success(found): candidate = found
        case let .failure(error): return .failure(error)
        }
        guard candidate.identity == served.identity else {
            return .failure(.unusablePath(path: plugin.path, reason: "changed while its plugin was to move into the host's"
                                          + " process; the next reload opens it as it is then"))
        }
        let opened = open([candidate])
        guard let again = opened.plugins.first else {
            return .failure(opened.outcome[candidate.realPath]?.error
                            ?? .unusablePath(path: plugin.path, reason: "holds no plugin any more"))
        }
        return .success((again, opened.registeredInProbe.contains(again.path)))
    }

    /// What a reload found changed among the files of its sources.
    struct Changes {
        /// The real paths of the files that are a served plugin's file as it was loaded.
        var unchanged: Set<String>
        /// The other files, opened (as ``open(_:beside:)`` does).
        var opened: Opened
        /// The files among them that were refused, and whether each is new to this process (never opened).
        var refused: [(path: String, error: PluginLoadError, isNew: Bool)]
    }

    /// Phase 2 of a reload: the candidates that are a served plugin's file as it was loaded (two
    /// plugins may have come from one path) are left as they are; the others are opened, but a
    /// library a served plugin links (the loader keeps the copy it mapped; a file put over it would
    /// be mapped beside it).
    func openChanges(_ candidates: [PluginCandidate], served published: [LoadedPlugin]) -> Changes {
        var servedFiles: [String: Set<FileIdentity>] = [:]
        for plugin in published {
            if let identity = plugin.candidate?.identity { servedFiles[plugin.path, default: []].insert(identity) }
        }
        let linked = Set(published.flatMap(\.linkedLibraries))
        let unchanged = Set(candidates.filter { candidate in
            candidate.identity.map { servedFiles[candidate.realPath]?.contains($0) == true } ?? false
        }.map(\.realPath))
        let fresh = candidates.filter { !unchanged.contains($0.realPath) && !$0.fileNames.contains(where: linked.contains) }
        let seenBefore = Set(fresh.filter(CheckedFiles.wasOpened).map(\.realPath))
        let opened = open(fresh, beside: published)
        let refused = fresh.compactMap { candidate in
            opened.outcome[candidate.realPath]?.error.map {
                (path: candidate.realPath, error: $0, isNew: !seenBefore.contains(candidate.realPath))
            }
        }
        return Changes(unchanged: unchanged, opened: opened, refused: refused)
    }

    /// The plugin in one candidate's file, or why it is refused; no probe (a probe child's own step).
    func openUnprobed(_ candidate: PluginCandidate) -> Result<LoadedPlugin, PluginLoadError> {
        PluginLoader.load(candidate, fileCheck: fileCheck)
    }

    /// The file at `path`, for showing it: what a plugin refused for its library versions says of
    /// itself, after its probe (with a probe). Registers nothing.
    func inspect(file path: String) -> PluginInspection {
        switch discover(file: path) {
        case let .failure(refusal):
            return PluginInspection(path: path, plugin: nil, refusal: refusal)
        case let .success(candidate):
            if case let .failure(failure)? = probed(candidate) {
                return PluginInspection(path: candidate.realPath, plugin: nil, refusal: failure)
            }
            return PluginLoader.inspect(candidate, fileCheck: fileCheck)
        }
    }
}
