import Foundation
import Testing
import TrainTesting

@testable import TrainCore

/// The text other people see: the fast path for plain ASCII says what the rule worked
/// out character by character says.
@Suite(.timeLimit(.minutes(1))) struct DisplayTextTests {
    @Test("random ASCII text, control bytes and white space at either end included, is cleaned as the rule character by character cleans it")
    func asciiFastPath() {
        let seeds = ProcessInfo.processInfo.environment["TRAINKIT_SEEDS"].flatMap(Int.init) ?? 20
        let alphabet: [UInt8] = [0x00, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x20, 0x41, 0x61, 0x7A, 0x21, 0x7E, 0x7F]
        for seed in 0..<UInt64(seeds) {
            var generator = SeededRandomNumberGenerator(seed: seed)
            for _ in 0..<500 {
                let length = Int.random(in: 0...8, using: &generator)
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0x41 }
                let text = String(decoding: bytes, as: UTF8.self)
                for newlines in [false, true] {
                    #expect(
                        DisplayText.cleaned(text, maximum: 100, allowsNewlines: newlines)
                            == DisplayText.cleanedByCharacter(text, allowsNewlines: newlines),
                        "seed \(seed): \(text.debugDescription), newlines \(newlines)")
                }
            }
        }
    }
}
