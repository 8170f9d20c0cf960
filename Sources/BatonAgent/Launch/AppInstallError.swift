/// Why `AppInstaller` did not install or remove an app; each names the file or the value at fault.
public enum AppInstallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The manifest could not be read (its own error names the file).
    case badManifest(String)
    /// The manifest's `CFBundleIdentifier` is not a valid application id (GApplication's rules:
    /// two or more dot-separated elements of `[A-Za-z0-9_-]`, none empty or starting with a
    /// digit, 255 bytes at most), so it cannot name a desktop entry: the id and the file.
    case invalidAppID(String, manifest: String)
    /// A value to write (`--exec`, `--name`) is empty or holds a control character.
    case invalidValue(option: String, value: String)
    /// The `Exec` line, its field codes expanded, is no command line a D-Bus service file can
    /// run (it does not parse, or its program is not found): the line.
    case noServiceCommand(String)
    /// The program the `Exec` line starts is neither an executable file nor on `PATH`.
    case programNotFound(String)
    /// A file is in the way that Baton did not install for this app: a desktop entry without
    /// `X-Baton-Installed=true`, a manifest of another app, or a D-Bus service file without
    /// Baton's mark (`AppInstaller.serviceFileMarker`) and the app's name. Nothing was written.
    case wouldOverwrite(String)
    /// No app of that id was installed here: the id and the data directory looked in.
    case notInstalled(String, dataDirectory: String)
    /// A file could not be written, moved or removed: its path and the reason. Nothing changed.
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .badManifest(let reason): "bad manifest: \(reason)"
        case .invalidAppID(let id, let manifest): "\(manifest): CFBundleIdentifier \(id) is not a valid application id (as com.example.Mail)"
        case .invalidValue(let option, let value): "\(option) \(value) is empty or holds a control character"
        case .noServiceCommand(let exec): "--exec \(exec) gives no command line for the D-Bus service file"
        case .programNotFound(let program): "the program \(program) is neither an executable file nor on PATH"
        case .wouldOverwrite(let path): "\(path) is there and was not installed by baton for this app; not replacing it"
        case .notInstalled(let id, let folder): "no app \(id) was installed by baton in \(folder)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
