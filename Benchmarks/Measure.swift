import Foundation

/// One row of the benchmark table: our figure, a baseline measured in the same
/// run, and their ratio (for times, lower is better).
struct BenchRow: Codable {
    var id: String
    var workload: String
    var ours: Double
    var baseline: Double
    var unit: String
    var ratio: Double
    var target: String

    init(id: String, workload: String, ours: Double, baseline: Double, unit: String, target: String) {
        self.id = id
        self.workload = workload
        self.ours = ours
        self.baseline = baseline
        self.unit = unit
        self.ratio = baseline > 0 ? ours / baseline : .infinity
        self.target = target
    }
}

/// Times `body` and returns the elapsed seconds.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// The median of `values`.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Runs `ours` and `baseline` in alternating rounds so both see the same machine
/// conditions, and returns the median of each (seconds per call of the closure).
func interleaved(rounds: Int, ours: () throws -> Double, baseline: () throws -> Double) rethrows -> (ours: Double, baseline: Double) {
    var oursTimes: [Double] = []
    var baselineTimes: [Double] = []
    for round in 0..<rounds {
        // Alternate which one goes first, so neither always runs on a warmer cache.
        if round.isMultiple(of: 2) {
            oursTimes.append(try ours())
            baselineTimes.append(try baseline())
        } else {
            baselineTimes.append(try baseline())
            oursTimes.append(try ours())
        }
    }
    return (median(oursTimes), median(baselineTimes))
}
