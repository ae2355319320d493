// StopSignal.swift — how SIGINT/SIGTERM reach the event loop: a Dispatch signal source
// sets a flag and wakes the loop through its self-pipe. The loop then stops accepting,
// lets running commands finish, flushes their replies and returns.

import Dispatch
import Glibc
import Synchronization

/// A one-way "please stop" flag shared by the signal handler and the event loop.
final class StopSignal: Sendable {
    private let requested = Atomic<Bool>(false)
    private let wakeUp: WakeUpPipe

    init(wakeUp: WakeUpPipe) {
        self.wakeUp = wakeUp
    }

    var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// Asks the loop to stop (idempotent; callable from any thread).
    func request() {
        requested.store(true, ordering: .releasing)
        wakeUp.signal()
    }
}

/// Routes SIGINT and SIGTERM to a `StopSignal`. Keep it alive while the server runs.
struct SignalWatcher: ~Copyable {
    private let sources: [any DispatchSourceSignal]

    init(stop: StopSignal, queue: DispatchQueue) {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            // Default handling would kill the process before running commands finish.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { stop.request() }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
