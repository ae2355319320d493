// InterruptibleCall.swift — runs a statement on a worker thread while the REPL's thread
// waits for it or for Ctrl-C (SIGINT, delivered because the terminal is out of raw mode
// while a query runs). On Ctrl-C the REPL stops waiting and tells the backend to give up.

import Dispatch
import Glibc
import Synchronization

/// Routes SIGINT to whichever call is running; create one per interactive session.
final class InterruptibleCall: @unchecked Sendable {
    // @unchecked: `source` (not Sendable) is set once in init and only cancelled in deinit;
    // the shared state is `waiting`, behind a Mutex.
    private struct Waiting {
        var done: DispatchSemaphore
        var interrupted = false
    }

    private let waiting = Mutex<Waiting?>(nil)
    private let source: any DispatchSourceSignal

    /// Takes over SIGINT for this process (ignored unless a call is running).
    init() {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "graphd.repl.signals"))
        source.setEventHandler { [weak self] in self?.interrupt() }
        source.resume()
    }

    deinit {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }

    /// Runs `body` on another thread; nil when Ctrl-C came first (`onInterrupt` then ran).
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T, onInterrupt: @escaping @Sendable () -> Void) -> T? {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        waiting.withLock { $0 = Waiting(done: done) }
        let worker = WorkerThread(body: {
            result.value.withLock { $0 = body() }
            done.signal()
        })
        worker.start()
        done.wait()
        let interrupted = waiting.withLock { state -> Bool in
            defer { state = nil }
            return state?.interrupted ?? false
        }
        if interrupted {
            onInterrupt()
            return nil
        }
        return result.value.withLock { $0 }
    }

    private func interrupt() {
        waiting.withLock { state in
            guard state != nil, state?.interrupted == false else { return }
            state?.interrupted = true
            state?.done.signal()
        }
    }
}

/// Where the worker leaves its result.
private final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}

/// A detached POSIX thread running a closure: a query may run long and must not occupy one
/// of Dispatch's few worker threads, which other parts of the process may need.
final class WorkerThread: Sendable {
    private let body: @Sendable () -> Void

    init(body: @escaping @Sendable () -> Void) { self.body = body }

    func start() {
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let created = pthread_create(&thread, &attributes, { context in
            let thread = Unmanaged<WorkerThread>.fromOpaque(context!).takeRetainedValue()
            thread.body()
            return nil
        }, box.toOpaque())
        pthread_attr_destroy(&attributes)
        if created != 0 {
            box.release()
            body()  // no thread to be had: run here, not interruptible
        }
    }
}
