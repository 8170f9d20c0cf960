import Baton

let host = LoopContext()                      // or LoopContext(existing), the service's GMainContext *
MainLoop.embed(in: host)                      // first, before anything of Baton's schedules work
Application.shared.manifest = AppManifest(appID: "com.example.service", teamIdentifier: "TEAM1")
Application.shared.finishLaunching()          // the launch messages; the app is active
// …then the service iterates host.gContext on the main thread, e.g. with its own
// g_main_loop_run(g_main_loop_new(host.gContext, 0)).
