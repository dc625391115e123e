import Foundation

/// Base64url without padding (RFC 4648 §5), the encoding of JWT segments.
public enum Base64URL {
    /// Encodes bytes as unpadded base64url.
    /// - Parameter data: The bytes.
    /// - Returns: The text, using `-` and `_` instead of `+` and `/`, without `=`.
    public static func encode<D: DataProtocol>(_ data: D) -> String {
        Data(data).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded (or padded) base64url text written in its one spelling: the
    /// bits of the last character that carry no byte are zero (RFC 4648 §3.5), so no two
    /// texts decode to the same bytes.
    /// - Parameter text: The text.
    /// - Returns: The bytes, or nil if `text` is not base64url, or is another spelling of
    ///   what ``encode(_:)`` writes.
    public static func decode(_ text: String) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=") }) else {
            return nil
        }
        // Padding only at the end, and only as much as the length asks for, or none.
        let unpadded = String(text.reversed().drop { $0 == "=" }.reversed())
        let padding = text.count - unpadded.count
        guard !unpadded.contains("="), padding == 0 || padding == (4 - unpadded.count % 4) % 4 else { return nil }
        var base64 = unpadded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard base64.count % 4 != 1 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), encode(data) == unpadded else { return nil }
        return data
    }
}
