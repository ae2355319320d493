// DiskFaultTests.swift — a full disk or an I/O error during a write: that write fails with an
// error naming the file and the cause, nothing of it is applied, reads go on, and writes
// succeed again once the disk does.

import Foundation
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct DiskFaultTests {
    @Test(arguments: [(FaultyFileSystem.Fault.shortWriteThenNoSpace, "No space left on device (errno 28)"),
                      (.noSpace, "No space left on device (errno 28)"),
                      (.writeIOError, "Input/output error (errno 5)")])
    func aFailedWriteIsRefusedAndNothingOfItIsApplied(fault: FaultyFileSystem.Fault, cause: String) throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let log = data + "/graphs/g/log-00000001.glog"
            do {
                let directory = try openData(data, fileSystem: faults)
                let store = try directory.createGraph(named: "g")
                try addUsers(store, [1])
                let records = try LogTests().logRecordBytes(log)
                faults.inject(fault, where: ".glog")
                for attempt in 0..<3 {
                    let error = expectStoreError { try addUsers(store, [100 + attempt]) }
                    #expect(error?.message == "graph 'g': the write was not applied: cannot write \(log): \(cause)")
                    #expect(userIDs(store) == [1], "nothing of the refused write is applied")
                    #expect(try LogTests().logRecordBytes(log) == records, "nothing of it stays in the log")
                }
                faults.heal()  // space returns
                try addUsers(store, [2])
                #expect(userIDs(store) == [1, 2])
            }
            let reopened = try openData(data)
            #expect(userIDs(try #require(try reopened.graph(named: "g"))) == [1, 2])
            #expect(reopened.recoveryMessages.isEmpty)
        }
    }
}
