import BatonLoop
import CGLib

/// The `GClosureNotify` that releases a signal handler's `CallbackBox`.
let releaseClosureBox: GClosureNotify = { userData, _ in
    if let userData { CallbackBox.release(userData) }
}

/// The `GDestroyNotify` that releases a `CallbackBox` (signal subscriptions, registrations).
let releaseBox: GDestroyNotify = { userData in
    if let userData { CallbackBox.release(userData) }
}
