import BatonContinuity

let node = try ContinuityNode()          // this device's identity and peers, from $XDG_CONFIG_HOME/baton
try node.start()                         // every interface, found by and finding the group through Avahi
                                         //   (host: "127.0.0.1" for this machine only)
