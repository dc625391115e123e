/// Text as the word filter compares it: what a reader sees. Invisible and
/// default-ignorable characters (Unicode's Default_Ignorable_Code_Point, such as a
/// zero-width joiner inside a word) are removed, and in a word that mixes Latin letters
/// with look-alikes (UTS #39 confusables: a Cyrillic "ѕ", "р", "а" beside a Latin "m"),
/// each look-alike is read as the ASCII letter it imitates. A word written wholly in
/// another script is read as that script's word, so a Russian "сор" is not "cop". The
/// tables are generated from Unicode's data files by `Scripts/generate-text-skeleton.py`,
/// which names their versions.
enum TextSkeleton {
    /// `text`, decomposed for compatibility (NFKD), with its ignorable characters removed
    /// and the look-alikes of its mixed-script words reduced.
    static func of(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var reduced = String.UnicodeScalarView()
        var word = Word()
        // Compatibility forms first: a full-width or mathematical "ｓ" is the Latin "s" it is.
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars where !isIgnorable(scalar.value) {
            if Word.holds(scalar) {
                word.append(scalar)
            } else {
                word.flush(into: &reduced)
                reduced.append(scalar)
            }
        }
        word.flush(into: &reduced)
        return String(reduced)
    }

    /// The letters, digits and marks of one word, with whether it mixes Latin letters and look-alikes.
    private struct Word {
        var scalars: [Unicode.Scalar] = []
        var hasLatinLetter = false
        var hasLookAlike = false

        static func holds(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            return properties.isAlphabetic || properties.numericType != nil || properties.generalCategory == .nonspacingMark
        }

        mutating func append(_ scalar: Unicode.Scalar) {
            scalars.append(scalar)
            if scalar.isASCII {
                hasLatinLetter = hasLatinLetter || scalar.properties.isAlphabetic
            } else if prototypes[scalar.value] != nil {
                hasLookAlike = true
            }
        }

        mutating func flush(into text: inout String.UnicodeScalarView) {
            for scalar in scalars {
                if hasLatinLetter, hasLookAlike, !scalar.isASCII, let prototype = prototypes[scalar.value] {
                    text.append(contentsOf: prototype.unicodeScalars)
                } else {
                    text.append(scalar)
                }
            }
            self = Word()
        }
    }

    /// Whether `value` is a Default_Ignorable_Code_Point.
    static func isIgnorable(_ value: UInt32) -> Bool {
        value >= 0xAD && ignorableRanges.contains { $0.contains(value) }
    }

    /// Look-alike → the ASCII it imitates, read once from ``prototypeTable``.
    static let prototypes: [UInt32: String] = {
        var table: [UInt32: String] = [:]
        for pair in prototypeTable.joined().split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let source = UInt32(parts[0], radix: 16) else { continue }
            table[source] = String(parts[1])
        }
        return table
    }()
}
