#if os(macOS) || os(Linux)
    import Foundation
    import TrainCore

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A helper executable of this package run as a child process, for the tests that
    /// kill a process mid-write or run two at once: its standard output is read
    /// line by line, and a line counts only once its newline has arrived.
    ///
    /// Every wait blocks a thread of its own, never one of the few threads Swift's
    /// concurrency runs the whole suite on: two tests waiting on children at once
    /// would otherwise stall every other test on a two-core machine.
    package final class ChildProcess {
        /// Not found next to the test bundle.
        package struct NotFound: Error, CustomStringConvertible {
            /// The executable's name.
            package let name: String
            /// What went wrong.
            package var description: String { "\(name) was not found next to the test bundle" }
        }

        private let process = Process()
        private let output = Pipe()
        private let errors = Pipe()
        private var buffer = Data()
        private var finished = false
        /// The complete lines written so far.
        package private(set) var lines: [String] = []

        /// Starts `name`, built next to the test bundle by `swift test`.
        /// - Parameters:
        ///   - name: The executable target's name.
        ///   - arguments: Its arguments.
        /// - Throws: ``NotFound``, or the error of starting it.
        package init(_ name: String, arguments: [String]) throws {
            process.executableURL = try Self.executable(name)
            process.arguments = arguments
            process.standardOutput = output
            process.standardError = errors
            try process.run()
        }

        private static func executable(_ name: String) throws -> URL {
            var directories = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            directories += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }.map { $0.deletingLastPathComponent() }
            for directory in directories {
                let candidate = directory.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
            throw NotFound(name: name)
        }

        /// Waits until `count` complete lines have arrived or the output ends. A process
        /// that writes neither for `limit` of real time — one waiting on a stopped test
        /// clock, say — is killed with SIGKILL, which ends its output, so a test never hangs.
        /// - Parameters:
        ///   - count: The number of lines to wait for.
        ///   - limit: The watchdog.
        package func waitForLines(_ count: Int, orKillAfter limit: Duration = .seconds(60)) async {
            let waiting = Locked(true)
            let (watched, seconds) = (process, Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18)
            Thread {
                Thread.sleep(forTimeInterval: seconds)
                if waiting.withLock({ $0 }), watched.isRunning { Foundation.kill(watched.processIdentifier, SIGKILL) }
            }.start()
            await onOwnThread {
                while self.lines.count < count && !self.finished {
                    let chunk = self.output.fileHandleForReading.availableData
                    if chunk.isEmpty { self.finished = true } else { self.absorb(chunk) }
                }
            }
            waiting.withLock { $0 = false }
        }

        /// Kills the process with SIGKILL, waits for it, and collects every line it had written.
        package func kill() async {
            await onOwnThread {
                Foundation.kill(self.process.processIdentifier, SIGKILL)
                self.process.waitUntilExit()
                self.drain()
            }
        }

        /// Waits for a normal exit and collects the rest of the output.
        /// - Returns: The exit status and whatever the process wrote to standard error.
        package func wait() async -> (status: Int32, errors: String) {
            await onOwnThread {
                self.drain()
                self.process.waitUntilExit()
                let message = String(decoding: self.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                return (self.process.terminationStatus, message)
            }
        }

        /// Runs blocking `work` on a new thread and waits for it without holding a thread.
        /// The caller awaits each call, so only one thread touches the state at a time.
        private func onOwnThread<Result: Sendable>(_ work: @escaping () -> Result) async -> Result {
            nonisolated(unsafe) let work = work
            return await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: work()) }.start()
            }
        }

        private func drain() {
            absorb(output.fileHandleForReading.readDataToEndOfFile())
            finished = true
        }

        private func absorb(_ chunk: Data) {
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer = Data(buffer[buffer.index(after: newline)...])
            }
            // A line cut off by a kill has no newline: it was never acknowledged.
        }
    }
#endif
