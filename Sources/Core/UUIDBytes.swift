import Foundation

extension UUID {
    /// A UUID of the first 16 of `bytes` (zeros after the last), with the version
    /// nibble set to `version` and the RFC 9562 variant bits: how a time-ordered
    /// (version 7) or hash-based (version 8) identifier is made from its bytes.
    /// - Parameters:
    ///   - bytes: The bytes, most significant first.
    ///   - version: The version, 0...15.
    package init(bytes: some Sequence<UInt8>, version: UInt8) {
        var b = Array(bytes.prefix(16))
        b += [UInt8](repeating: 0, count: 16 - b.count)
        b[6] = (version & 0x0F) << 4 | (b[6] & 0x0F)
        b[8] = 0x80 | (b[8] & 0x3F)
        self.init(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
