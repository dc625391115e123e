import Foundation
import Testing
import TrainTesting

@Suite(.timeLimit(.minutes(1))) struct TemporaryDirectoryTests {
    @Test("a temporary directory exists while held and is removed with its files when released")
    func lifecycle() throws {
        var directory: TemporaryDirectory? = try TemporaryDirectory()
        let url = try #require(directory?.url)
        try Data("x".utf8).write(to: try #require(directory?.file("a.txt")))
        #expect(FileManager.default.fileExists(atPath: url.appendingPathComponent("a.txt").path))
        directory = nil
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
