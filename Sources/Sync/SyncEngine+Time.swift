import Foundation
import TrainCore

/// The remote's time at one moment of this launch, by the clock's elapsed time.
struct TimeAnchor: Sendable {
    /// The remote's time then, in milliseconds since 1970.
    var milliseconds: Int64
    /// The clock's elapsed time then.
    var elapsed: Duration

    /// The remote's time at `elapsed`, by the time passed since the anchor.
    func milliseconds(at elapsed: Duration) -> Int64 {
        let (seconds, attoseconds) = (elapsed - self.elapsed).components
        return milliseconds &+ seconds &* 1000 &+ attoseconds / 1_000_000_000_000_000
    }
}

extension SyncEngine {
    /// A new hybrid clock reading, stored so the clock never goes back.
    func tick(at date: Date, in records: RecordWriter) throws -> HybridTimestamp {
        var replica = try replica(in: records)
        let stamp = replica.clock.tick(physical: remoteTime(replica.clock, at: date), replicaID: replica.id)
        try records.put(replica, forKey: SyncRecords.replicaKey, in: SyncRecords.meta)
        return stamp
    }

    /// The remote's time at device time `date` as this device estimates it, in
    /// milliseconds: the device clock corrected by the last offset it accepted, and —
    /// within this launch — never behind the anchor plus the elapsed time since.
    func remoteTime(_ clock: HybridClock, at date: Date) -> Int64 {
        let elapsed = context.clock.elapsed
        let corrected = clock.corrected(date)
        return anchor.withLock { anchor in
            let anchored = anchor ?? TimeAnchor(milliseconds: corrected, elapsed: elapsed)
            anchor = anchored
            return max(corrected, anchored.milliseconds(at: elapsed))
        }
    }

    /// Learns the offset to the remote's clock from an answer it sent at `serverTime`
    /// and this device received at `date`, unless the two are further apart than the
    /// maximum drift: such a reading is counted in `report` and not used.
    func learnTime(_ serverTime: Date, at date: Date, replica: inout SyncRecords.Replica, report: inout SyncReport) {
        guard let server = HybridClock.milliseconds(serverTime), let local = HybridClock.milliseconds(date),
            abs(server - local) <= maximumDrift
        else {
            report.ignoredClockReadings += 1
            return
        }
        replica.clock.offset = server - local
        let elapsed = context.clock.elapsed
        anchor.withLock { $0 = TimeAnchor(milliseconds: server, elapsed: elapsed) }
    }

    /// Moves the hybrid clock past `stamp`, read in a document from the remote, unless
    /// it is further ahead of the remote's time than the maximum drift: such a reading
    /// is counted in `report` and not followed, so one document stamped years ahead
    /// does not carry this device's edits there.
    func observe(_ stamp: HybridTimestamp, at date: Date, replica: inout SyncRecords.Replica, report: inout SyncReport) {
        guard stamp.milliseconds <= remoteTime(replica.clock, at: date) &+ maximumDrift else {
            report.ignoredClockReadings += 1
            return
        }
        replica.clock.observe(stamp)
    }

    /// ``SyncConfiguration/maximumClockDrift`` in milliseconds.
    private var maximumDrift: Int64 {
        let (seconds, attoseconds) = configuration.maximumClockDrift.components
        return seconds &* 1000 &+ attoseconds / 1_000_000_000_000_000
    }
}
