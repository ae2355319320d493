// WakeUpPipe.swift — lets worker threads and the signal handler wake the event loop out
// of epoll_wait: they write a byte, the loop reads and drains it (the self-pipe trick).

import Glibc

/// A non-blocking pipe whose read end sits in the epoll set.
final class WakeUpPipe: Sendable {
    let readDescriptor: Int32
    let writeDescriptor: Int32

    init() throws(SystemCallError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SystemCallError(call: "pipe", errno: Glibc.errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = fds[0]
        writeDescriptor = fds[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Wakes the loop. A full pipe already means "wake up", so EAGAIN is fine.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe (called by the loop when it is readable).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }
}
