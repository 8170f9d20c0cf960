import BatonLoop

/// Why bytes are not a value of the `Variant` subset in GVariant's normal form: the same three
/// refusals as `Variant(serialized:type:)`, in its words.
enum WireFormatError: Error, Equatable {
    /// What GLib's `g_variant_is_normal_form` refuses: truncated, padded, offsets out of place,
    /// a boolean other than 0 or 1, a string that is not NUL-terminated UTF-8, a boxed value
    /// without a valid definite type, nesting beyond GLib's depth.
    case notNormalForm
    /// A type (inside a `v`) that `Variant` does not model, or that is not a type.
    case unsupportedType(String)
    /// An `a{sv}` with a key twice (Swift string equality, as `Variant` decides).
    case duplicateKey(String)

    /// The reason, worded as `VariantError` words it, for bytes read as `type`.
    func reason(type: String, size: Int) -> String {
        switch self {
        case .notNormalForm: VariantError.notNormalForm(type: type, size: size).description
        case .unsupportedType(let t): VariantError.unsupportedType(t).description
        case .duplicateKey(let k): VariantError.duplicateKey(k).description
        }
    }
}
