import Foundation
import Testing
import TrainCore

@Suite struct Base64URLTests {
    @Test("base64url round-trips every byte without padding and rejects foreign characters")
    func base64url() {
        for count in 0..<40 {
            let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 251) })
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes)
        }
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("abcde") == nil)
        #expect(Base64URL.decode("é") == nil)
    }
}
