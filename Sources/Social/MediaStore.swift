import Foundation

/// Where users' photos are kept: put, read, list and delete under a per-user prefix.
///
/// TrainKit's conformance is ``LocalMediaStore``, in memory or in a directory; an app
/// can put Firebase Storage behind the same protocol. A ``LocalSocialFeedService``
/// checks a post's media against its store, deletes it with the post, and deletes all
/// of a user's media with their account.
///
/// ```swift
/// let photo = try await media.put(jpegData, kind: .postPhoto, for: user.id)
/// let post = try await social.createPost(content: "Summit!", workoutType: .run, mediaURL: media.url(for: photo))
/// ```
public protocol MediaStore: Sendable {
    /// The largest blob ``put(_:kind:for:)`` accepts, in bytes.
    var maximumSize: Int { get }

    /// Stores a photo under the user's prefix.
    /// - Parameters:
    ///   - data: The image; its type is read from its first bytes.
    ///   - kind: What it is for.
    ///   - userID: The owner.
    /// - Returns: Where it is.
    /// - Throws: ``SocialError`` — `mediaTooLarge`, `unsupportedMediaType`,
    ///   `userNotFound` for an empty user ID or one over 100 bytes, `storage`.
    func put(_ data: Data, kind: MediaKind, for userID: String) async throws -> MediaReference

    /// The bytes of a stored photo.
    /// - Parameter reference: The photo.
    /// - Returns: Its bytes.
    /// - Throws: ``SocialError`` — `mediaNotFound`, `storage`.
    func data(for reference: MediaReference) async throws -> Data

    /// Whether a photo is stored.
    /// - Parameter reference: The photo.
    /// - Returns: True if ``data(for:)`` would return it.
    func contains(_ reference: MediaReference) async throws -> Bool

    /// The photos of a user, in path order.
    /// - Parameter userID: The owner.
    /// - Returns: Their references.
    func list(for userID: String) async throws -> [MediaReference]

    /// Deletes a photo; deleting one that is not there does nothing.
    /// - Parameter reference: The photo.
    func delete(_ reference: MediaReference) async throws

    /// Deletes every photo of a user.
    /// - Parameter userID: The owner.
    /// - Returns: How many were deleted.
    func deleteAll(for userID: String) async throws -> Int

    /// The URL a post or a profile shows for a photo: `file`, so it passes the feed's
    /// media URL check.
    /// - Parameter reference: The photo.
    /// - Returns: Its URL.
    func url(for reference: MediaReference) -> URL

    /// The photo a URL names in this store, in its one canonical form, whatever the
    /// URL's spelling: letter case, `.` and `..`, symbolic links, percent-encoding and
    /// Unicode normalization all resolve to the same reference, so an alias can
    /// never pass an ownership or usage check its canonical URL would fail.
    /// - Parameter url: A URL from ``url(for:)``, or any other.
    /// - Returns: The reference, or nil for a URL outside the store.
    /// - Throws: ``TrainCore/TrainErrorCode/mediaNotFound`` for a URL inside the store that
    ///   names none of its photos.
    func reference(for url: URL) throws(SocialError) -> MediaReference?
}

/// What a photo is for; each kind has its own folder under the user's prefix.
public enum MediaKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// A profile photo, in `profile_photo`.
    case profilePhoto = "profile_photo"
    /// A photo attached to a post, in `post_photos`.
    case postPhoto = "post_photos"
}

/// An image format, recognised by the first bytes of the data, never by a name.
public enum MediaContentType: String, Codable, Hashable, Sendable, CaseIterable {
    /// JPEG: `FF D8 FF`.
    case jpeg
    /// PNG: the eight-byte PNG signature.
    case png
    /// GIF: `GIF87a` or `GIF89a`.
    case gif
    /// HEIC or HEIF: an `ftyp` box with a HEIF brand.
    case heic
    /// WebP: `RIFF`, a size, `WEBP`.
    case webp

    /// The type of `data`, read from its first bytes, or nil for anything else.
    /// - Parameter data: The bytes.
    public init?(sniffing data: Data) {
        let head = [UInt8](data.prefix(16))
        func matches(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        let heifBrands = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].map { Array($0.utf8) }
        if matches([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if matches(Array("GIF87a".utf8)) || matches(Array("GIF89a".utf8)) {
            self = .gif
        } else if matches(Array("RIFF".utf8)) && matches(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if matches(Array("ftyp".utf8), at: 4) && heifBrands.contains(where: { matches($0, at: 8) }) {
            self = .heic
        } else {
            return nil
        }
    }

    /// The file name extension: `jpg`, `png`, `gif`, `heic`, `webp`.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// The MIME type, such as `image/jpeg`.
    public var mimeType: String { "image/\(rawValue)" }
}

/// A stored photo: its owner, kind, identifier and type, which make its path
/// `users/<owner>/<kind>/<id>.<extension>`, the owner's ID written in hexadecimal.
public struct MediaReference: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The owner's user ID.
    public let userID: String
    /// What it is for.
    public let kind: MediaKind
    /// Its identifier.
    public let id: UUID
    /// Its format.
    public let contentType: MediaContentType

    /// Creates a reference.
    /// - Parameters:
    ///   - userID: The owner.
    ///   - kind: What it is for.
    ///   - id: The identifier.
    ///   - contentType: The format.
    public init(userID: String, kind: MediaKind, id: UUID, contentType: MediaContentType) {
        self.userID = userID
        self.kind = kind
        self.id = id
        self.contentType = contentType
    }

    /// The path under a store's root: only hexadecimal digits, letters of the kind and
    /// of the extension, `_`, `-`, `.` and `/`, whatever the user ID holds.
    public var path: String {
        "\(Self.folder(of: userID))/\(kind.rawValue)/\(id.uuidString.lowercased()).\(contentType.fileExtension)"
    }

    /// The path.
    public var description: String { path }

    /// The folder of a user's media: `users/` and the user ID's UTF-8 bytes in hexadecimal.
    static func folder(of userID: String) -> String {
        "users/" + userID.utf8.map { String(format: "%02x", $0) }.joined()
    }

    /// The reference a path names, or nil if it is not one ``path`` makes.
    init?(path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "users", let userID = Self.userID(hex: parts[1]), let kind = MediaKind(rawValue: String(parts[2]))
        else { return nil }
        let file = parts[3].split(separator: ".", omittingEmptySubsequences: false)
        guard file.count == 2, let id = UUID(uuidString: String(file[0])), file[0] == id.uuidString.lowercased(),
            let contentType = MediaContentType.allCases.first(where: { $0.fileExtension == file[1] })
        else { return nil }
        self.init(userID: userID, kind: kind, id: id, contentType: contentType)
    }

    /// The user ID whose hexadecimal UTF-8 is `hex`, or nil.
    static func userID(hex: Substring) -> String? {
        guard !hex.isEmpty, hex.count.isMultiple(of: 2), hex.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return String(bytes: bytes, encoding: .utf8)
    }
}
