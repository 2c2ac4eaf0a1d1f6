import LeakReport

extension CheckRecord {
    /// The outcome the store keeps: a check that leaked in some attempt is a leak, also when its
    /// outcome says another (a tool whose attempt leaked, then released the object, and that
    /// reports the last attempt): a leak not confirmed at head, which `GateRule` judges flaky.
    /// The one rule ingest and a run's tally read.
    var storedOutcome: CheckOutcome {
        leakedAttemptCount > 0 ? .leaked : outcome
    }
}
