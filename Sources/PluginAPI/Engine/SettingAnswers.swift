/// The answer each key a plugin read got, kept for its settings' life (``PluginSettings``).
final class SettingAnswers: Sendable {
    enum Answer: Sendable {
        case value(String?)
        case failed(String)
    }

    private let answers = Lock<[String: Answer]>([:])

    /// The answer for `key`: the one kept, or `ask()`'s, kept from now on (asked without the lock
    /// held: a source may take its time, and a read of another key need not wait for it).
    func answer(for key: String, ask: () -> Answer) -> Answer {
        if let kept = answers.withLock({ $0[key] }) { return kept }
        let fresh = ask()
        return answers.withLock { answers in
            if let kept = answers[key] { return kept }
            answers[key] = fresh
            return fresh
        }
    }

    /// Every key read so far and its answer.
    var read: [String: Answer] { answers.withLock { $0 } }
}
