import Foundation

/// A hybrid logical clock reading: milliseconds of the remote's time as this device
/// last measured it, a counter for edits within one millisecond or after the device
/// clock went back, and the replica that made it. Readings are totally ordered —
/// time, then counter, then replica ID — the same way on every device, so two
/// devices resolving the same conflict pick the same winner.
///
/// The time part is the device clock corrected by the offset to the remote's clock
/// measured at each sync, and never goes back: a device whose clock is hours wrong
/// stamps its edits with the remote's time once it has synced. A remote's time more
/// than ``SyncConfiguration/maximumClockDrift`` from the device's clock is not used.
/// Within one launch the time part also keeps pace with the elapsed time since the
/// last reading (the clock's elapsed time), so setting the device's clock back does not
/// set its edits back.
public struct HybridTimestamp: Codable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970 on the remote's clock, as this device estimated it.
    public let milliseconds: Int64
    /// Orders readings within one millisecond.
    public let counter: UInt32
    /// The replica that made the reading; breaks the last ties.
    public let replicaID: String

    /// Creates a reading.
    /// - Parameters:
    ///   - milliseconds: Milliseconds since 1970.
    ///   - counter: The counter.
    ///   - replicaID: The replica.
    public init(milliseconds: Int64, counter: UInt32, replicaID: String) {
        self.milliseconds = milliseconds
        self.counter = counter
        self.replicaID = replicaID
    }

    /// Whether `lhs` comes before `rhs`: by time, then counter, then replica ID in
    /// UTF-8 byte order.
    /// - Parameters:
    ///   - lhs: A reading.
    ///   - rhs: Another reading.
    /// - Returns: Whether `lhs` is earlier.
    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool {
        if lhs.milliseconds != rhs.milliseconds { return lhs.milliseconds < rhs.milliseconds }
        if lhs.counter != rhs.counter { return lhs.counter < rhs.counter }
        // Readings of one edit share their replica's string: equal at once, without a walk.
        if lhs.replicaID == rhs.replicaID { return false }
        return lhs.replicaID.utf8.lexicographicallyPrecedes(rhs.replicaID.utf8)
    }

    /// The reading as `milliseconds.counter@replica`.
    public var description: String { "\(milliseconds).\(counter)@\(replicaID)" }
}

/// The state of one device's hybrid logical clock, kept in its store so it never
/// goes back across launches.
struct HybridClock: Codable, Hashable, Sendable {
    /// The time part of the latest reading made or seen.
    var milliseconds: Int64 = 0
    /// Its counter.
    var counter: UInt32 = 0
    /// The remote's clock minus this device's, in milliseconds, measured at the last
    /// answer from the remote.
    var offset: Int64 = 0

    /// The device time `date`, corrected to the remote's clock, in milliseconds.
    func corrected(_ date: Date) -> Int64 {
        (Self.milliseconds(date) ?? 0) &+ offset
    }

    /// A new reading at `physical` milliseconds, later than every reading made or seen.
    mutating func tick(physical: Int64, replicaID: String) -> HybridTimestamp {
        if physical > milliseconds {
            milliseconds = physical
            counter = 0
        } else if counter < .max {
            counter += 1
        } else if milliseconds < .max {
            milliseconds += 1
            counter = 0
        }
        // At the end of time (a reading no real clock makes) the clock stays where it is.
        return HybridTimestamp(milliseconds: milliseconds, counter: counter, replicaID: replicaID)
    }

    /// Moves the clock past a reading from another replica, so edits made after
    /// seeing it are ordered after it.
    mutating func observe(_ stamp: HybridTimestamp) {
        if stamp.milliseconds > milliseconds || (stamp.milliseconds == milliseconds && stamp.counter > counter) {
            milliseconds = stamp.milliseconds
            counter = stamp.counter
        }
    }

    /// `date` in whole milliseconds since 1970, or nil for a date no clock reads.
    static func milliseconds(_ date: Date) -> Int64? {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return nil }
        return Int64(milliseconds)
    }
}
