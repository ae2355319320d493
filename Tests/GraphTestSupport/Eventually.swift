// Eventually.swift — waiting in tests for a condition another thread or process makes true.
// Polling, not timing: a test asserts the condition, the limit only bounds a failing run.

#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` every `interval` until it holds or `limit` passes; whether it held.
public func eventually(within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(5),
                       _ condition: () throws -> Bool) rethrows -> Bool {
    let end = ContinuousClock.now + limit
    let pause = useconds_t(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
    while ContinuousClock.now < end {
        if try condition() { return true }
        usleep(pause)
    }
    return try condition()
}
