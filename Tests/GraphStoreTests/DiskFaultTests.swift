// DiskFaultTests.swift — a full disk or an I/O error during a write: that write fails with an
// error naming the file and the cause, nothing of it is applied (or it is undone), reads go on,
// and writes succeed again once the disk does.

import Foundation
import Testing
@testable import GraphStore
import GraphTestSupport

@Suite struct DiskFaultTests {
    static let faults: [(FaultyFileSystem.Fault, String)] = [(.shortWriteThenNoSpace, "No space left on device (errno 28)"),
                                                             (.noSpace, "No space left on device (errno 28)"),
                                                             (.writeIOError, "Input/output error (errno 5)")]

    /// A full disk: the log cannot make room for the record, so it is written before the write
    /// counts as applied (the segment drops its in-memory tail), and the failure refuses it.
    @Test(arguments: faults)
    func aWriteTheDiskHasNoRoomForIsRefusedAndNothingOfItIsApplied(fault: FaultyFileSystem.Fault, cause: String) throws {
        try withTemporaryDirectory { data in
            let faults = FaultyFileSystem()
            let log = data + "/graphs/g/log-00000001.glog"
            do {
                let directory = try openData(data, fileSystem: faults)
                let store = try directory.createGraph(named: "g")
                let records = try LogTests().logRecordBytes(log)
                faults.inject(fault, where: ".glog")  // before the log has preallocated anything
                for attempt in 0..<3 {
                    let error = expectStoreError { try addUsers(store, [100 + attempt]) }
                    #expect(error?.message == "graph 'g': the write was not applied: cannot write \(log): \(cause)")
                    #expect(userIDs(store) == [], "nothing of the refused write is applied")
                    #expect(try LogTests().logRecordBytes(log) == records, "nothing of it stays in the log")
                }
                faults.heal()  // space returns
                try addUsers(store, [1, 2])
                #expect(userIDs(store) == [1, 2])
            }
            let reopened = try openData(data)
            #expect(userIDs(try #require(try reopened.graph(named: "g"))) == [1, 2])
            #expect(reopened.recoveryMessages.isEmpty)
        }
    }

    /// The group-commit leader's block write fails like an fsync would: the write is not
    /// acknowledged, and the graph goes back to what its log holds durably.
    @Test(arguments: faults)
    func aFailedBlockWriteIsNotAcknowledgedAndIsUndone(fault: FaultyFileSystem.Fault, cause: String) throws {
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
                    if attempt == 0 {
                        #expect(error?.message.hasPrefix("graph 'g': the write was not acknowledged: cannot write \(log): \(cause); "
                                                         + "it was undone") == true, "\(error?.message ?? "")")
                    }
                    #expect(userIDs(store) == [1], "nothing of the refused write is applied")
                    #expect(try LogTests().logRecordBytes(log) == records, "nothing of it stays in the log")
                }
                faults.heal()
                try addUsers(store, [2])
                #expect(userIDs(store) == [1, 2])
            }
            let reopened = try openData(data)
            #expect(userIDs(try #require(try reopened.graph(named: "g"))) == [1, 2])
        }
    }
}
