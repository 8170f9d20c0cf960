import Foundation

/// The linked devices by the names they are shown as (`LinkTable.link(shownAs:)`, as in
/// `NearbyActivity.device`): each device's name in the group's list held, else, and also, the
/// short form of its identifier (`RevocationList.deviceName(of:)`,
/// `OpaqueIdentifier.shortForm(_:)`). Where two devices are shown alike, the lower identifier
/// is the one found, as a scan in identifier order would find it.
///
/// Made for one set of identifiers and one list's names; `names` is kept so the table can tell
/// when the list held changed (comparing dictionaries that share storage costs no scan).
struct ShownNames {
    /// The list's names (identifier → name) this was made from.
    let names: [String: String]
    private var identifiers: [String: String] = [:]

    /// The shown names of `identifiers`, named by `names`.
    init(identifiers: some Sequence<String>, names: [String: String]) {
        self.names = names
        for identifier in identifiers.sorted() {
            let short = OpaqueIdentifier.shortForm(identifier)
            for shown in [names[identifier] ?? short, short] where self.identifiers[shown] == nil {
                self.identifiers[shown] = identifier
            }
        }
    }

    /// The identifier of the device shown as `name`, if one is.
    func identifier(shownAs name: String) -> String? { identifiers[name] }
}
