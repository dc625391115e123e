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

    @Test("a text whose last character carries bits no byte uses is another spelling, and is refused")
    func oneSpelling() {
        // "QQ" is the one spelling of the byte 0x41; "QR" through "QZ" set bits after it.
        #expect(Base64URL.decode("QQ") == Data([0x41]))
        for other in ["QR", "QS", "QZ", "QUJ", "QUL="] {
            #expect(Base64URL.decode(other) == nil, "\(other)")
        }
        #expect(Base64URL.decode("QUJD") == Data("ABC".utf8))
        #expect(Base64URL.decode("QUI=") == Data("AB".utf8), "padding is still read")
    }

    @Test("padding is read only at the end and only as much as the length asks for")
    func paddingSpellings() {
        for spelling in ["Q=Q", "=QQ", "QQ=", "QQ===", "Q=U=I", "QUJD====", "QUI==", "QUJD="] {
            #expect(Base64URL.decode(spelling) == nil, "\(spelling)")
        }
        #expect(Base64URL.decode("QQ==") == Data([0x41]) && Base64URL.decode("QUI=") == Data("AB".utf8))
    }
}
