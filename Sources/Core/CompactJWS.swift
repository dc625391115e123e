import Foundation

/// Compact JSON Web Signatures with HMAC-SHA256 (`alg: HS256`): `header.payload.signature`
/// in base64url, signed with the platform's HMAC. The one signing and checking routine
/// of TrainAuth's tokens and the simulated App Store's signed notifications.
package enum CompactJWS {
    /// The header TrainKit writes: `{"alg":"HS256","typ":"JWT"}`.
    package static let header = #"{"alg":"HS256","typ":"JWT"}"#

    /// Signs `payload`, encoded as JSON with sorted keys, under `header`.
    /// - Returns: The compact JWS.
    /// - Throws: ``TrainErrorCode/unencodable`` if the payload cannot be encoded; the platform's failure.
    package static func sign(_ payload: some Encodable, header: String = header, key: some DataProtocol) throws(CoreError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes: Data
        do {
            bytes = try encoder.encode(payload)
        } catch {
            throw CoreError(.unencodable, detail: "The signed payload could not be encoded as JSON.")
        }
        let signingInput = "\(Base64URL.encode(Data(header.utf8))).\(Base64URL.encode(bytes))"
        let signature = try PlatformCrypto.hmacSHA256(key: key, message: Data(signingInput.utf8))
        return "\(signingInput).\(Base64URL.encode(signature))"
    }

    /// The payload of `token` once its signature checks out with `key`: three base64url
    /// parts in their one spelling, a header naming HS256, and a signature compared in
    /// constant time.
    /// - Parameters:
    ///   - token: The compact JWS.
    ///   - key: The HMAC key.
    ///   - maximumLength: The longest token read, in UTF-8 bytes.
    /// - Returns: The payload's bytes.
    /// - Throws: ``TrainErrorCode/invalidArgument`` naming what is wrong; the platform's failure.
    package static func verifiedPayload(of token: String, key: some DataProtocol, maximumLength: Int = 65_536) throws(CoreError) -> Data {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        // Unpadded base64url only: a token has one spelling, so one altered by padding is refused.
        guard token.utf8.count <= maximumLength, !token.contains("="), parts.count == 3, let header = Base64URL.decode(String(parts[0])),
            let payload = Base64URL.decode(String(parts[1])), let signature = Base64URL.decode(String(parts[2]))
        else {
            throw CoreError(.invalidArgument, detail: "The token is not three base64url parts.")
        }
        guard let fields = try? JSONSerialization.jsonObject(with: header) as? [String: Any], fields["alg"] as? String == "HS256" else {
            throw CoreError(.invalidArgument, detail: "The token's header does not name HS256.")
        }
        let expected = try PlatformCrypto.hmacSHA256(key: key, message: Data("\(parts[0]).\(parts[1])".utf8))
        guard signature.count == expected.count, zip(signature, expected).reduce(UInt8(0), { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw CoreError(.invalidArgument, detail: "The token's signature does not match.")
        }
        return payload
    }
}
