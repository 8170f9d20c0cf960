import BatonLoop

/// Runs `body` on the GLib loop until it ends; returns its failure.
func onToolLoop(_ body: @escaping @MainActor () async -> String?) -> String? {
    MainActor.assumeIsolated {
        var failure: String?
        Task { @MainActor in
            failure = await body()
            MainLoop.quit()
        }
        MainLoop.run()
        return failure
    }
}
