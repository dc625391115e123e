import Foundation

/// The rules for text that other people see — names, posts, comments — shared by
/// TrainAuth's profile and TrainSocial.
package enum DisplayText {
    /// `text` trimmed, or nil if it holds a control
    /// character (newlines and tabs aside, when allowed), an invisible formatting
    /// character (bidirectional overrides, zero-width spaces; the zero-width joiner and
    /// non-joiner of emoji and scripts are kept), a character of more than 16 scalars
    /// (stacked combining marks), more than 32 bytes a character in all, or nothing
    /// visible, or if it is over 32 bytes a character for `maximum` characters.
    package static func cleaned(_ text: String, maximum: Int, allowsNewlines: Bool) -> String? {
        guard text.utf8.count <= maximum * 32 + 64 else { return nil }
        if isCleanASCII(text, allowsNewlines: allowsNewlines) { return text }
        return cleanedByCharacter(text, allowsNewlines: allowsNewlines)
    }

    /// What ``cleaned(_:maximum:allowsNewlines:)`` returns for text of any length,
    /// worked out character by character: the rule its fast path for plain ASCII keeps to.
    package static func cleanedByCharacter(_ text: String, allowsNewlines: Bool) -> String? {
        let unified = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let trimmed = unified.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return "" }
        var visible = false
        for character in trimmed {
            guard character.unicodeScalars.count <= 16 else { return nil }
            for scalar in character.unicodeScalars {
                switch scalar.properties.generalCategory {
                case .control:
                    guard allowsNewlines, scalar == "\n" || scalar == "\t" else { return nil }
                case .format:
                    guard scalar == "\u{200C}" || scalar == "\u{200D}" else { return nil }
                case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber, .letterNumber,
                    .otherNumber, .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
                    .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
                    if !scalar.properties.isDefaultIgnorableCodePoint { visible = true }
                default:
                    break
                }
            }
        }
        return visible ? trimmed : nil
    }

    /// Whether `text` is printable ASCII (and newlines and tabs, when allowed) with
    /// something visible and nothing to trim: what ``cleaned(_:maximum:allowsNewlines:)``
    /// returns as is, told from its bytes alone.
    private static func isCleanASCII(_ text: String, allowsNewlines: Bool) -> Bool {
        var visible = false
        var last: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case 0x21...0x7E: visible = true
            case 0x20: break
            case 0x09, 0x0A: guard allowsNewlines else { return false }
            default: return false
            }
            if last == 0 && !visible { return false }
            last = byte
        }
        return visible && last > 0x20
    }

    /// Whether a media URL may be attached: `https` with a host, or `file`.
    package static func isValidMediaURL(_ url: URL) -> Bool {
        guard url.absoluteString.utf8.count <= 2_048 else { return false }
        return switch url.scheme?.lowercased() {
        case "https": !(url.host ?? "").isEmpty
        case "file": url.isFileURL && !url.path.isEmpty
        default: false
        }
    }

    /// A display name: cleaned, on one line, at most 100 characters (a longer one is
    /// cut); nil when nothing visible is left or it is not clean.
    package static func name(_ text: String) -> String? {
        guard let name = cleaned(String(text.prefix(200)), maximum: 200, allowsNewlines: false).map({ String($0.prefix(100)) }), !name.isEmpty
        else { return nil }
        return name
    }
}
