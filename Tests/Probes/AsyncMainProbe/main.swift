// A program with an async entry point (a top-level `await`) that then calls
// Application.main(): Baton must stop it with a message saying what to change.
import Baton

await Task.yield()
Application.main()
print("unreachable: Application.main() returned under an async main")
