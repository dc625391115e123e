import Foundation
import TrainCore

/// Words and phrases an app does not allow in posts, comments, display names and
/// report details: each matched as whole words, ignoring case, accents, letter width
/// and Unicode spelling, so "Spám", "SPAM" and a full-width "ｓｐａｍ" all match "spam".
/// It matches what a reader sees: invisible and default-ignorable characters are
/// removed first ("sp\u{200D}am"), and in a word that mixes Latin letters with
/// look-alikes of other scripts, those are read as the letters they imitate (UTS #39
/// confusables: "ѕраm" with a Cyrillic "ѕ", "р" and "а"). A word written wholly in
/// another script is that script's word: a Russian "сор" does not match "cop". Set it on
/// ``SocialPolicy/wordFilter``; text that matches is
/// ``TrainCore/TrainErrorCode/objectionableContent`` and nothing is stored.
///
/// ```swift
/// let filter = try WordFilter(["spam", "buy followers"])
/// let policy = SocialPolicy(wordFilter: filter)
/// ```
public struct WordFilter: Hashable, Sendable {
    /// The entries, as given.
    public let entries: [String]
    /// Each entry's words as text is compared.
    private let phrases: [[String]]

    /// A filter that matches nothing.
    public static let none = WordFilter(checked: [], phrases: [])

    /// The most entries a filter holds.
    public static let maximumEntries = 10_000

    /// Creates a filter.
    /// - Parameter entries: Words or phrases, each 1 to 100 characters with a letter or
    ///   digit, no control or invisible formatting character.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidWordList`` for an empty or hostile entry, or
    ///   more than ``maximumEntries``; no filter is made.
    public init(_ entries: [String]) throws(SocialError) {
        guard entries.count <= Self.maximumEntries else {
            throw SocialError(.invalidWordList, detail: "A word list holds at most \(Self.maximumEntries) entries; this one has \(entries.count).")
        }
        var phrases: [[String]] = []
        for (index, entry) in entries.enumerated() {
            guard let cleaned = DisplayText.cleaned(entry, maximum: 100, allowsNewlines: false), !cleaned.isEmpty,
                cleaned.count <= 100
            else {
                throw SocialError(.invalidWordList, detail: "Entry \(index) is empty, longer than 100 characters, or holds an invisible character.")
            }
            let words = SocialRecords.words(TextSkeleton.of(cleaned))
            guard !words.isEmpty else { throw SocialError(.invalidWordList, detail: "Entry \(index) has no letter or digit.") }
            phrases.append(words)
        }
        self.init(checked: entries, phrases: phrases)
    }

    private init(checked entries: [String], phrases: [[String]]) {
        self.entries = entries
        self.phrases = phrases
    }

    /// Whether `text` holds one of the entries as whole words.
    /// - Parameter text: A post, a comment or a name.
    /// - Returns: True if an entry's words appear in it, in order and next to each other.
    public func matches(_ text: String) -> Bool {
        guard !phrases.isEmpty else { return false }
        let words = SocialRecords.words(TextSkeleton.of(text))
        guard !words.isEmpty else { return false }
        let present = Set(words)
        for phrase in phrases where phrase.allSatisfy(present.contains) {
            if phrase.count == 1 { return true }
            for start in words.indices where words[start...].starts(with: phrase) { return true }
        }
        return false
    }
}
