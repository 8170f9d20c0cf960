/// The version of Baton's programs and libraries, as `baton --version`, `batond --version` and
/// `baton status` say it, and as the Debian package is numbered.
public enum BatonVersion {
    /// This build's version.
    public static let current = "0.9.0"
}
