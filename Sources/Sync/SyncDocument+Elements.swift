import Foundation

/// The reading of the edit that last set or removed one element of a list field, and
/// where the element stands.
struct ElementStamp: Hashable, Sendable {
    var stamp: HybridTimestamp
    /// Whether that edit removed the element: a tombstone, kept so a merge tells a
    /// removal here from an addition there.
    var isRemoved: Bool
    /// Its ``ListPosition``; nil in a document stored before positions.
    var position: String?
    /// The reading of the edit that put it at ``position``: of the two devices that
    /// moved it at once, the later one's position stands.
    var placed: HybridTimestamp?
}

/// One element of a list field as a document holds it.
struct ListElement: Sendable {
    /// The JSON of the element's `id`: how the document names it.
    var id: String
    /// The element.
    var value: JSONValue
    /// Its JSON, as every device writes it.
    var json: Data
}

/// An element's state in one document: live with its JSON, or removed; and where it stands.
struct ElementState: Hashable, Sendable {
    var stamp: HybridTimestamp
    /// The element's JSON; nil once it is removed.
    var json: Data?
    /// The element as a value; nil once it is removed.
    var value: JSONValue?
    /// Its ``ListPosition``.
    var position: String
    /// The reading of the edit that put it there.
    var placed: HybridTimestamp

    /// The element as a document keeps it.
    var elementStamp: ElementStamp { ElementStamp(stamp: stamp, isRemoved: json == nil, position: position, placed: placed) }

    static func == (lhs: ElementState, rhs: ElementState) -> Bool { lhs.stamp == rhs.stamp && lhs.json == rhs.json }
    func hash(into hasher: inout Hasher) {
        hasher.combine(stamp)
        hasher.combine(json)
    }
}

extension SyncDocument {
    /// The elements of a field's JSON, in order, when it is a list of objects each with
    /// an `id` no other has; nil for any other value.
    static func elements(of json: Data) -> [ListElement]? {
        guard case .array(let items)? = try? JSONDecoder().decode(JSONValue.self, from: json) else { return nil }
        var elements: [ListElement] = []
        var ids = Set<String>()
        for item in items {
            guard case .object(let object) = item, let id = object["id"], let idJSON = try? Self.json(id), let itemJSON = try? Self.json(item) else {
                return nil
            }
            let name = String(decoding: idJSON, as: UTF8.self)
            guard ids.insert(name).inserted else { return nil }
            elements.append(ListElement(id: name, value: item, json: itemJSON))
        }
        return elements
    }

    /// The list field `name` in order, and each of its elements' state, removed ones
    /// included; nil if the field is not a list of elements with IDs. A list stored
    /// before elements had readings reads as stamped with the field's reading; one
    /// stored without IDs reads with the IDs `Record` gives its elements when it decodes
    /// it; one stored before positions reads with positions spread in its order, the
    /// same on every device, placed at each element's reading.
    func list<Record: Syncable>(_ name: String, as type: Record.Type) -> (order: [String], states: [String: ElementState])? {
        guard let json = fields[name] else { return nil }
        let live = Self.elements(of: json) ?? (try? record(as: Record.self)).flatMap { try? Self.fields(of: $0)[name] }.flatMap(Self.elements(of:))
        guard let live, let fieldStamp = stamps[name] else { return nil }
        let stored = elements[name] ?? [:]
        let positioned = live.allSatisfy { stored[$0.id]?.position.map(ListPosition.isValid) == true }
        let spread = positioned ? [] : ListPosition.spread(live.count)
        var states: [String: ElementState] = [:]
        for (index, element) in live.enumerated() {
            let kept = stored[element.id]
            let stamp = kept?.stamp ?? fieldStamp
            states[element.id] = ElementState(
                stamp: stamp, json: element.json, value: element.value, position: positioned ? kept?.position ?? "" : spread[index],
                placed: positioned ? kept?.placed ?? stamp : stamp)
        }
        // A tombstone stored before positions stands after the live elements.
        let end = ListPosition.between(states.values.map(\.position).max(), nil, count: 1)[0]
        for (id, stamp) in stored where stamp.isRemoved && states[id] == nil {
            let position = stamp.position.flatMap { ListPosition.isValid($0) ? $0 : nil }
            states[id] = ElementState(stamp: stamp.stamp, json: nil, value: nil, position: position ?? end, placed: stamp.placed ?? stamp.stamp)
        }
        return (live.map(\.id), states)
    }

    /// The element readings of list field `name` as `value` now holds it: an element
    /// whose JSON is as it was in `previous` keeps its reading, an element added or
    /// changed takes `stamp`, and one removed since `previous` becomes a tombstone at
    /// `stamp`; tombstones older than ``tombstoneRetention`` are dropped. Nil if `value`
    /// is not a list of elements with IDs.
    static func elementStamps<Record: Syncable>(
        of name: String, value: Data, previous: SyncDocument?, stamp: HybridTimestamp, as type: Record.Type
    ) -> [String: ElementStamp]? {
        guard let now = elements(of: value) else { return nil }
        let before = previous?.list(name, as: Record.self)?.states ?? [:]
        let positions = ListPosition.place(
            now.map(\.id), before: before.filter { $0.value.json != nil }.mapValues { ($0.position, $0.placed) }, at: stamp)
        var stamps: [String: ElementStamp] = [:]
        for (element, place) in zip(now, positions) {
            let kept = before[element.id].flatMap { $0.json == element.json ? $0.stamp : nil }
            stamps[element.id] = ElementStamp(stamp: kept ?? stamp, isRemoved: false, position: place.position, placed: place.placed)
        }
        // A tombstone is kept for the remote's usual retention of deletions (30 days) by
        // the clock of this edit: long enough for every device that syncs to see it.
        let horizon = stamp.milliseconds &- tombstoneRetention
        for (id, state) in before where stamps[id] == nil && (state.json != nil || state.stamp.milliseconds >= horizon) {
            stamps[id] = ElementStamp(stamp: state.json == nil ? state.stamp : stamp, isRemoved: true, position: state.position, placed: state.placed)
        }
        return stamps
    }

    /// How long an element's tombstone is kept, in milliseconds: 30 days.
    static let tombstoneRetention: Int64 = 30 * 86_400_000
}
