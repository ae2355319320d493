// FeedSubscriptionsTests.swift — the loop's side of the change feed without sockets: a live
// subscription that passes its output budget falls behind stalled, is refilled from the ring and
// turns live again, no longer stalled; one behind for a gap in deliveries is not stalled; one whose log is gone gets the final error naming its resume token and is closed;
// an `@token` replay whose log is gone gets a reset instead.

import GraphStore
import Synchronization
import Testing
@testable import graphd

@Suite struct FeedSubscriptionsTests {
    static let history = "0123456789abcdef"

    /// Connections whose unsent output the test sets.
    final class Outputs: @unchecked Sendable {
        var unsent: [UInt64: Int] = [:]
        var connections: FeedSubscriptions.Connections {
            FeedSubscriptions.Connections(protocolVersion: { _ in .resp2 }, unsent: { [unowned self] in self.unsent[$0] ?? 0 })
        }
    }

    /// Commit `sequence`: a node created, and user 7's profile updated.
    static func commit(_ sequence: UInt64) -> DerivedCommit {
        let change = EntityChange(operation: .created, entity: .node(EntityRef(node: UInt32(sequence), appID: .integer(Int64(sequence))), labels: ["N"]))
        let profile = SocialEvent(type: .profileUpdated, to: EntityRef(node: 7, appID: .integer(7)))
        return DerivedCommit(sequence: sequence, commitTime: 0, history: history, social: [profile], changes: [change])
    }

    static func position(_ sequence: UInt64) -> FeedPosition {
        FeedPosition(generation: 1, token: ChangeToken(history: history, sequence: sequence), store: nil, published: sequence)
    }

    static func text(_ frame: [UInt8]) -> String { String(decoding: frame, as: UTF8.self) }

    @Test func fallsBehindAndCatchesUpFromTheRing() {
        var subscriptions = FeedSubscriptions()
        let outputs = Outputs()
        let name = Array("graphd:g:changes".utf8)
        let made = subscriptions.subscribe(1, name: name, channel: FeedChannel(name, pattern: false)!, position: Self.position(10),
                                           connections: outputs.connections)
        #expect(made.frames.isEmpty)
        let token = ChangeToken(history: Self.history, sequence: 11)
        #expect(subscriptions.deliver("g", generation: 1, commits: [Self.commit(11)], through: token, connections: outputs.connections).frames.count == 1)
        // Past the budget: commit 12 is not queued, the subscription is behind at 11.
        outputs.unsent[1] = FeedSubscriptions.outputBudget + 1
        let skipped = subscriptions.deliver("g", generation: 1, commits: [Self.commit(12)],
                                            through: ChangeToken(history: Self.history, sequence: 12), connections: outputs.connections)
        #expect(skipped.frames.isEmpty && skipped.refills == [1])
        #expect(skipped.stalls == ["g": 1])
        #expect(subscriptions.lag(of: 1) == 1)
        // Drained: the ring gives commit 12, and the subscription is live again.
        outputs.unsent[1] = 0
        let refilled = subscriptions.refill(1, ring: { _, _, after, _ in after == 11 ? .commits([Self.commit(12)]) : .commits([]) },
                                            connections: outputs.connections)
        #expect(refilled.frames.count == 1 && Self.text(refilled.frames[0].frame).contains("\"token\":\"\(Self.history)-12\""))
        #expect(refilled.stalls == ["g": -1])
        #expect(subscriptions.lag(of: 1) == 0)
        #expect(subscriptions.deliver("g", generation: 1, commits: [Self.commit(13)],
                                      through: ChangeToken(history: Self.history, sequence: 13), connections: outputs.connections).frames.count == 1)
    }

    @Test func behindForAGapIsNotStalled() {
        var subscriptions = FeedSubscriptions()
        let outputs = Outputs()
        let name = Array("graphd:g:changes".utf8)
        _ = subscriptions.subscribe(2, name: name, channel: FeedChannel(name, pattern: false)!, position: Self.position(10),
                                    connections: outputs.connections)
        // Commits 11 and 12 were made while the graph was not observed: known by number only.
        let gap = subscriptions.deliver("g", generation: 1, commits: [], through: ChangeToken(history: Self.history, sequence: 12),
                                        connections: outputs.connections)
        #expect(gap.refills == [2] && gap.stalls.isEmpty)
        #expect(subscriptions.lag(of: 2) == 2)
        let refilled = subscriptions.refill(2, ring: { _, _, after, _ in after == 10 ? .commits([Self.commit(11), Self.commit(12)]) : .commits([]) },
                                            connections: outputs.connections)
        #expect(refilled.frames.count == 2 && refilled.stalls.isEmpty)
        #expect(subscriptions.lag(of: 2) == 0)
        // Removing a stalled subscription says so (its graph's count of stalled ones drops).
        outputs.unsent[2] = FeedSubscriptions.outputBudget + 1
        #expect(subscriptions.deliver("g", generation: 1, commits: [Self.commit(13)],
                                      through: ChangeToken(history: Self.history, sequence: 13), connections: outputs.connections).stalls == ["g": 1])
        #expect(subscriptions.removeAll(of: 2).map { "\($0.graph) \($0.stalled)" } == ["g true"])
    }

    @Test func behindPastRetentionGetsOneErrorAndACloses() {
        var subscriptions = FeedSubscriptions()
        let outputs = Outputs()
        let name = Array("graphd:g:user:7".utf8)
        _ = subscriptions.subscribe(3, name: name, channel: FeedChannel(name, pattern: false)!, position: Self.position(10),
                                    connections: outputs.connections)
        outputs.unsent[3] = FeedSubscriptions.outputBudget + 1
        _ = subscriptions.deliver("g", generation: 1, commits: [Self.commit(11), Self.commit(12)],
                                  through: ChangeToken(history: Self.history, sequence: 12), connections: outputs.connections)
        outputs.unsent[3] = 0
        let asked = subscriptions.refill(3, ring: { _, _, _, _ in .needsLog }, connections: outputs.connections)
        #expect(asked.logReads.count == 1 && asked.logReads.first?.after == 10)
        guard let (subscription, after) = asked.logReads.first else { return }
        let gone = subscriptions.logRead(subscription, after: after, .gone(oldest: 40), connections: outputs.connections)
        #expect(gone.closing == [3])
        #expect(gone.frames.count == 1 && Self.text(gone.frames[0].frame)
                == "-ERR graphd: subscriber fell behind by 2 changes, past the retained log; resume with SUBSCRIBE graphd:g:user:7@\(Self.history)-10\r\n")
    }

    @Test func aReplayTheLogCannotGiveIsAReset() {
        var subscriptions = FeedSubscriptions()
        let outputs = Outputs()
        let name = Array("graphd:g:changes@\(Self.history)-3".utf8)
        // No store to place the token: a reset at once, then live.
        let made = subscriptions.subscribe(5, name: name, channel: FeedChannel(name, pattern: false)!, position: Self.position(10),
                                           connections: outputs.connections)
        #expect(made.frames.count == 1 && Self.text(made.frames[0].frame).contains("{\"type\":\"reset\",\"token\":\"\(Self.history)-10\"}"))
        #expect(subscriptions.deliver("g", generation: 1, commits: [Self.commit(11)],
                                      through: ChangeToken(history: Self.history, sequence: 11), connections: outputs.connections).frames.count == 1)
    }

    @Test func channelNames() {
        #expect(FeedChannel(Array("graphd:g:user:42".utf8), pattern: false)?.resume == .now)
        #expect(FeedChannel(Array("graphd:g:user:42@now".utf8), pattern: false)?.channel == Array("graphd:g:user:42".utf8))
        #expect(FeedChannel(Array("graphd:g:notify@abc-12".utf8), pattern: false)?.resume == .after(ChangeToken(history: "abc", sequence: 12)))
        #expect(FeedChannel(Array("graphd:g:changes@junk".utf8), pattern: false)?.resume == .invalid)
        #expect(FeedChannel(Array("graphd:g:other".utf8), pattern: false) == nil)
        #expect(FeedChannel(Array("graphd:g:user:".utf8), pattern: false) == nil)
        #expect(FeedChannel(Array("graphd:*:notify".utf8), pattern: true) == nil)
        #expect(FeedChannel(Array("graphd:g:user:*".utf8), pattern: true)?.isPattern == true)
        #expect(FeedChannel(Array("news".utf8), pattern: false) == nil)
        #expect(FeedChannel([0x67, 0x72, 0x61, 0x70, 0x68, 0x64, 0x3a, 0xff, 0xfe], pattern: false) == nil)
    }
}
