import BatonAgent

let agent = AgentConnection.join()       // keep it: the agent at $XDG_RUNTIME_DIR/baton/agent.socket,
                                         //   started by systemd or by this call if none runs
// Application.shared.nearbyActivities now lists what the other devices advertise;
// Application.shared.continueNearbyActivity(entry) pulls the payload and continues it.
