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

    /// Decodes unpadded (or padded) base64url text.
    /// - Parameter text: The text.
    /// - Returns: The bytes, or nil if `text` is not base64url.
    public static func decode(_ text: String) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "=") }) else {
            return nil
        }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 = base64.replacingOccurrences(of: "=", with: "")
        guard base64.count % 4 != 1 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
