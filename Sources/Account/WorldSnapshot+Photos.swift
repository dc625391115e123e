import Foundation
import TrainCore
import TrainSocial

extension WorldSnapshot {
    /// A photo a post or a profile shows, kept in the stack's media store, with its bytes: a JPEG,
    /// PNG, GIF, HEIC or WebP image of at most `MediaConfiguration.maximumSize` bytes,
    /// written in the document in base 64.
    public struct Photo: Codable, Hashable, Sendable {
        /// Its owner, who alone shows it in a post.
        public var user: String
        /// Its ID, unique in the document: what a post's or a user's `photo` names.
        public var id: UUID
        /// Its folder in the media store: a post's photo unless given.
        public var kind: MediaKind?
        /// The image.
        public var data: Data

        /// Creates a photo.
        /// - Parameters:
        ///   - user: Its owner.
        ///   - id: Its ID.
        ///   - data: The image.
        public init(user: String, id: UUID, data: Data) {
            self.user = user
            self.id = id
            self.data = data
        }
    }

    /// The photos, each of a user, an image the media store takes, its ID given once:
    /// their references in the importing stack's store, by ID.
    func resolvePhotos(users: Set<UserKey>, into resolved: inout Resolved) throws(WorldSnapshotError) -> [UUID: MediaReference] {
        let maximumSize = MediaConfiguration().maximumSize
        var references: [UUID: MediaReference] = [:]
        for (index, photo) in photos.enumerated() {
            var path: String { "photos[\(index)]" }
            guard users.contains(UserKey(photo.user)) else {
                throw WorldSnapshotError(.danglingReference, path: "\(path).user", detail: "No user has the ID \(photo.user.debugDescription).")
            }
            do {
                try LocalMediaStore.checkOwner(photo.user)
            } catch {
                throw WorldSnapshotError(.invalidValue, path: "\(path).user", detail: "A photo belongs to a user ID of 1 to 100 bytes.")
            }
            guard photo.data.count <= maximumSize else {
                throw WorldSnapshotError(
                    .invalidValue, path: "\(path).data", detail: "A photo has at most \(maximumSize) bytes; this one has \(photo.data.count).")
            }
            guard let contentType = MediaContentType(sniffing: photo.data) else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).data", detail: "A photo is a JPEG, PNG, GIF, HEIC or WebP image.")
            }
            let reference = MediaReference(userID: photo.user, kind: photo.kind ?? .postPhoto, id: photo.id, contentType: contentType)
            guard references.updateValue(reference, forKey: photo.id) == nil else {
                throw WorldSnapshotError(.duplicateID, path: "\(path).id", detail: "Another photo has the ID \(photo.id.uuidString).")
            }
            resolved.photos.append((reference, photo.data))
        }
        return references
    }

    /// Throws `invalidValue` at the first photo no profile or post shows: the media store
    /// keeps none such, and an export lists none.
    func checkPhotosShown(_ resolved: Resolved) throws(WorldSnapshotError) {
        let shown = Set(resolved.postPhotos.values.map(\.id)).union(resolved.userPhotos.values.map(\.id))
        for (index, photo) in photos.enumerated() where !shown.contains(photo.id) {
            throw WorldSnapshotError(.invalidValue, path: "photos[\(index)].id", detail: "No profile or post shows the photo \(photo.id.uuidString).")
        }
    }

    /// A user's profile photo: a URL from elsewhere, or one of their photos.
    static func profilePhoto(of user: User, path: String, photos: [UUID: MediaReference]) throws(WorldSnapshotError) -> MediaReference? {
        guard let id = user.photo else { return nil }
        guard user.photoURL == nil else {
            throw WorldSnapshotError(.invalidValue, path: "\(path).photo", detail: "A user shows a photo URL or a photo, not both.")
        }
        return try photo(id, of: user.id, in: photos, path: "\(path).photo")
    }

    /// The photo `id` names, which must be one of `owner`'s.
    private static func photo(_ id: UUID, of owner: String, in photos: [UUID: MediaReference], path: String) throws(WorldSnapshotError)
        -> MediaReference
    {
        guard let reference = photos[id] else {
            throw WorldSnapshotError(.danglingReference, path: path, detail: "No photo has the ID \(id.uuidString).")
        }
        guard reference.userID.utf8.elementsEqual(owner.utf8) else {
            throw WorldSnapshotError(.invalidValue, path: path, detail: "A profile or a post shows only its own user's photos.")
        }
        return reference
    }

    /// What a post shows: a URL from elsewhere, or one of its author's photos.
    static func media(of post: Post, path: String, photos: [UUID: MediaReference]) throws(WorldSnapshotError) -> MediaReference? {
        if let url = post.mediaURL {
            guard post.photo == nil else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).photo", detail: "A post shows a media URL or a photo, not both.")
            }
            guard DisplayText.isValidMediaURL(url) else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).mediaURL", detail: "Media is an https URL with a host, or a file URL.")
            }
        }
        guard let id = post.photo else { return nil }
        return try photo(id, of: post.author, in: photos, path: "\(path).photo")
    }
}
