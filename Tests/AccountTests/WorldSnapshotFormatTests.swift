import Foundation
import Testing
import TrainAccount

/// The format's three lists of keys — the table the reader checks a document's keys
/// against, the decoder, and the writer — kept in step: a key the table accepts and the
/// decoder ignores would be dropped from a fixture without a word.
@Suite struct WorldSnapshotFormatTests {

    /// A document that gives every key the format has, each list with one element, the
    /// three report targets each once.
    static let everyKey = #"""
        {"version": 1, "tokenSigningKey": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
         "users": [{"id": "ada", "displayName": "Ada", "email": "ada@example.com", "isPrivateEmail": false, "isEmailVerified": true,
                    "isAnonymous": false, "phoneNumber": "+15550100", "photoURL": "https://example.com/ada.jpg",
                    "photo": "00000000-0000-4000-8000-000000000008",
                    "createdAt": "2026-01-01T00:00:00Z", "lastSignInAt": "2026-01-02T00:00:00Z", "password": "correct horse",
                    "passwordHash": {"algorithm": "pbkdf2-sha256", "iterations": 1000, "salt": "AAEC", "hash": "AAECAwQFBgcICQoLDA0ODw=="},
                    "providers": [{"provider": "password", "subject": "ada@example.com", "email": "ada@example.com", "linkedAt": "2026-01-01T00:00:00Z"}]}],
         "follows": [{"follower": "ada", "followee": "grace"}],
         "blocks": [{"blocker": "ada", "blocked": "bob"}],
         "mutes": [{"muter": "ada", "muted": "cy"}],
         "posts": [{"id": "00000000-0000-7000-8000-000000000001", "author": "ada", "content": "10 km", "workoutType": "run",
                    "createdAt": "2026-01-01T00:00:00Z", "expiresAt": "2026-01-02T00:00:00Z", "likeCount": 1, "commentCount": 1,
                    "isHiddenByModeration": true, "workout": {"duration": 3600, "distance": 10000},
                    "mediaURL": "https://example.com/run.jpg", "photo": "00000000-0000-4000-8000-000000000008"}],
         "photos": [{"user": "ada", "id": "00000000-0000-4000-8000-000000000008", "kind": "profile_photo", "data": "iVBORw0KGgoAAAANSUhEUg=="}],
         "likes": [{"user": "grace", "post": "00000000-0000-7000-8000-000000000001"}],
         "comments": [{"id": "00000000-0000-7000-8000-000000000002", "post": "00000000-0000-7000-8000-000000000001", "author": "grace",
                       "text": "Nice", "createdAt": "2026-01-01T00:00:00Z", "isHiddenByModeration": true}],
         "reports": [{"reporter": "grace", "post": "00000000-0000-7000-8000-000000000001", "reason": "spam", "details": "ads", "createdAt": "2026-01-01T00:00:00Z"},
                     {"reporter": "grace", "comment": "00000000-0000-7000-8000-000000000002", "reason": "spam"},
                     {"reporter": "grace", "user": "ada", "reason": "spam"}],
         "moderationCases": [{"post": "00000000-0000-7000-8000-000000000001", "status": "hidden", "openedAt": "2026-01-01T00:00:00Z",
                              "reviewedAt": "2026-01-02T00:00:00Z", "removedOwner": "ada", "removedContent": "10 km"},
                             {"comment": "00000000-0000-7000-8000-000000000002", "status": "open"}, {"user": "ada", "status": "open"}],
         "suspensions": [{"user": "bob", "date": "2026-01-01T00:00:00Z"}],
         "moderators": [{"user": "grace", "grantedAt": "2026-01-01T00:00:00Z"}],
         "moderationLog": [{"id": "00000000-0000-7000-8000-000000000003", "moderator": "grace", "action": "takeDown",
                            "post": "00000000-0000-7000-8000-000000000001", "owner": "ada", "note": "spam", "date": "2026-01-01T00:00:00Z"},
                           {"action": "restore", "comment": "00000000-0000-7000-8000-000000000002"}, {"action": "restore", "user": "ada"}],
         "notifications": [{"recipient": "ada", "kind": "comment", "post": "00000000-0000-7000-8000-000000000001",
                            "updatedAt": "2026-01-01T00:00:00Z", "readAt": "2026-01-02T00:00:00Z",
                            "causes": [{"actor": "grace", "comment": "00000000-0000-7000-8000-000000000002", "date": "2026-01-01T00:00:00Z"}]}],
         "notificationsSeen": [{"user": "ada", "upTo": "2026-01-01T00:00:00Z"}],
         "unlocks": [{"user": "ada", "id": "00000000-0000-7000-8000-000000000004", "workoutType": "run", "unlockDate": "2026-01-01T00:00:00Z",
                      "timeZone": "Europe/Paris", "expiresAt": "2026-01-01T23:00:00Z", "workout": {"duration": 1800, "distance": 5000}}],
         "purchases": [{"user": "ada", "appleID": "ada@example.com", "product": "com.train.pro.monthly", "purchasedAt": "2026-01-01T00:00:00Z",
                        "expiresAt": "2026-02-01T00:00:00Z", "autoRenewOffAt": "2026-01-15T00:00:00Z",
                        "renewsAs": "com.train.pro.yearly", "renewsAsSince": "2026-01-10T00:00:00Z", "refundedAt": "2026-01-02T00:00:00Z", "refundReason": "other",
                        "billingFailedAt": "2026-01-20T00:00:00Z", "billingGracePeriod": true,
                        "offer": "comeback", "offerType": "promotional"}],
         "pendingPurchases": [{"user": "ada", "appleID": "ada@example.com", "product": "com.train.pro.monthly", "kind": "interrupted",
                               "requestedAt": "2026-01-01T00:00:00Z"}],
         "families": [{"organizer": "ada@example.com", "members": ["grace@example.com"]}],
         "consents": [{"user": "ada", "document": "terms", "version": 2, "action": "withdrawn", "date": "2026-01-01T00:00:00Z"}],
         "plans": [{"id": "00000000-0000-7000-8000-000000000005", "user": "ada", "name": "Spring", "notes": "Easy", "startDate": "2026-03-02T00:00:00Z",
                    "endDate": "2026-04-26T00:00:00Z", "daysPerWeek": 3, "isCompleted": false, "lastModified": "2026-01-01T00:00:00Z",
                    "weeklyWorkouts": [{"id": "00000000-0000-7000-8000-000000000006", "title": "Easy run", "minutes": 40}]}],
         "devicePlans": [{"id": "00000000-0000-7000-8000-000000000005", "user": "ada", "name": "Spring", "notes": "Easy", "startDate": "2026-03-02T00:00:00Z",
                          "endDate": "2026-04-26T00:00:00Z", "daysPerWeek": 3, "isCompleted": true, "lastModified": "2026-01-01T00:00:00Z",
                          "weeklyWorkouts": [{"id": "00000000-0000-7000-8000-000000000006", "title": "Easy run", "minutes": 40}]}],
         "devicePlanDeletions": [{"user": "ada", "id": "00000000-0000-7000-8000-000000000007", "deletedAt": "2026-01-01T00:00:00Z"}],
         "deviceConflicts": [{"user": "ada", "plan": "00000000-0000-7000-8000-000000000005", "field": "name", "losingValue": "\"Old\"",
                              "winningValue": "\"Spring\"", "resolvedAt": "2026-01-01T00:00:00Z"}],
         "deletions": [{"user": "bob", "purgeAt": "2026-02-01T00:00:00Z"}]}
        """#

    /// The key paths of a parsed document, lists' elements not indexed.
    static func keyPaths(of value: Any, under prefix: String = "") -> Set<String> {
        if let list = value as? [Any] { return list.reduce(into: []) { $0.formUnion(keyPaths(of: $1, under: prefix)) } }
        guard let object = value as? [String: Any] else { return [] }
        var paths: Set<String> = []
        for (key, child) in object {
            let path = prefix.isEmpty ? key : "\(prefix).\(key)"
            paths.insert(path)
            paths.formUnion(keyPaths(of: child, under: path))
        }
        return paths
    }

    @Test("a document with every key the format has reads and writes back every key with its value: no key is accepted and then dropped")
    func everyKeyReadAndWritten() throws {
        let given = Data(Self.everyKey.utf8)
        let parsed = try JSONSerialization.jsonObject(with: given)
        #expect(Self.keyPaths(of: parsed) == WorldSnapshot.formatKeyPaths, "the document gives every key of the format's table")
        let written = try WorldSnapshot(json: given).encoded()
        let reparsed = try JSONSerialization.jsonObject(with: written)
        #expect(Self.keyPaths(of: reparsed) == WorldSnapshot.formatKeyPaths, "the writer writes every key the reader read")
        // Every value as given: the same JSON, whatever the spacing and the keys' order.
        let canonical = { (value: Any) throws -> Data in try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) }
        #expect(try canonical(reparsed) == canonical(parsed))
    }
}
