import Foundation

/// How a post or comment mentions a user: `<@userID>` in its text, as Slack and
/// Discord write mentions. An app's composer puts ``token(for:)`` where the user
/// picked someone, and draws the text with ``displayText(_:name:)``, so a mention
/// follows its user through a change of name.
///
/// Posting or commenting a mention notifies the user it names. The service refuses a
/// mention of a user who blocks the author or whom the author blocks (`blocked`), of a
/// user it does not know or who is hidden from the author (`userNotFound`), and of more
/// than ``maximumPerText`` users in one text (`invalidContent`, `invalidComment`).
public enum Mention {
    /// The most users one post or comment mentions.
    public static let maximumPerText = 20

    /// The text that mentions `userID`.
    /// - Parameter userID: The user to mention.
    /// - Returns: `<@userID>`.
    public static func token(for userID: String) -> String { "<@\(userID)>" }

    /// The users `text` mentions, each once, in the order they first appear. A mention
    /// is `<@` and `>` around 1 to 512 bytes of anything but whitespace, `<`, `>` and
    /// `@`; the text is read scalar by scalar, so a combining mark after a mention does
    /// not hide it.
    /// - Parameter text: A post's or comment's text.
    /// - Returns: The mentioned user IDs.
    public static func userIDs(in text: String) -> [String] {
        var found: [String] = []
        for token in tokens(in: text) where !found.contains(where: { $0.utf8.elementsEqual(token.userID.utf8) }) {
            found.append(token.userID)
        }
        return found
    }

    /// `text` as a reader sees it: each mention replaced by `@` and the name `name`
    /// gives its user, or "@someone" when it gives none.
    /// - Parameters:
    ///   - text: A post's or comment's text.
    ///   - name: The display name of a mentioned user's ID, if known.
    /// - Returns: The text to draw.
    public static func displayText(_ text: String, name: (String) -> String?) -> String {
        var scalars = String.UnicodeScalarView()
        var copied = text.unicodeScalars.startIndex
        for token in tokens(in: text) {
            scalars.append(contentsOf: text.unicodeScalars[copied..<token.range.lowerBound])
            scalars.append(contentsOf: "@\(name(token.userID) ?? "someone")".unicodeScalars)
            copied = token.range.upperBound
        }
        scalars.append(contentsOf: text.unicodeScalars[copied...])
        return String(scalars)
    }

    /// Every mention in `text`, with where it stands.
    private static func tokens(in text: String) -> [(userID: String, range: Range<String.UnicodeScalarView.Index>)] {
        let scalars = text.unicodeScalars
        var tokens: [(userID: String, range: Range<String.UnicodeScalarView.Index>)] = []
        var index = scalars.startIndex
        while index < scalars.endIndex {
            guard scalars[index] == "<", scalars.index(after: index) < scalars.endIndex, scalars[scalars.index(after: index)] == "@" else {
                index = scalars.index(after: index)
                continue
            }
            let start = scalars.index(index, offsetBy: 2)
            var end = start
            while end < scalars.endIndex, isIDScalar(scalars[end]) { end = scalars.index(after: end) }
            let userID = String(scalars[start..<end])
            if end < scalars.endIndex, scalars[end] == ">", !userID.isEmpty, userID.utf8.count <= 512 {
                tokens.append((userID, index..<scalars.index(after: end)))
                index = scalars.index(after: end)
            } else {
                index = scalars.index(after: index)
            }
        }
        return tokens
    }

    /// Whether `scalar` may stand in a mentioned user ID.
    private static func isIDScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "<" && scalar != ">" && scalar != "@" && !scalar.properties.isWhitespace
    }
}

extension PostEntity {
    /// The users the post mentions, in the order they first appear.
    public var mentionedUserIDs: [String] { Mention.userIDs(in: content) }
}

extension PostComment {
    /// The users the comment mentions, in the order they first appear.
    public var mentionedUserIDs: [String] { Mention.userIDs(in: text) }
}
